import { AssembleJob, AssembleResult } from './assemble-job';
import { FindBatchJob, FindBatchResult, FindJob, FindResult } from './find-job';
import { IndexJob, IndexResult, SidecarJob, SidecarResult } from './index-job';
import { ScanJob, ScanResult } from './scan-job';
import { DigestJob, DigestResult, ExpandJob, ExpandResult } from './rewrite-jobs';
import {
  ExtractJob,
  ExtractResult,
  ManualExtractJob,
  ManualExtractResult,
  SessionIdleJob,
  SessionIdleResult,
} from './extract-job';
import { QueueName } from './queue-names';

/** Ties each queue to its payload and result, so producers and consumers are checked against each other. */
export interface JobPayloads {
  [QueueName.Index]: { data: IndexJob; result: IndexResult };
  [QueueName.Sidecar]: { data: SidecarJob; result: SidecarResult };
  [QueueName.Find]: { data: FindJob | FindBatchJob; result: FindResult | FindBatchResult };
  [QueueName.Scan]: { data: ScanJob; result: ScanResult };
  [QueueName.Assemble]: { data: AssembleJob; result: AssembleResult };
  [QueueName.Expand]: { data: ExpandJob; result: ExpandResult };
  [QueueName.Digest]: { data: DigestJob; result: DigestResult };
  [QueueName.Extract]: { data: ExtractJob; result: ExtractResult };
  [QueueName.SessionIdle]: { data: SessionIdleJob; result: SessionIdleResult };
  [QueueName.SessionExtract]: { data: ManualExtractJob; result: ManualExtractResult };
}

export type JobOf<Q extends keyof JobPayloads> = JobPayloads[Q]['data'];
export type ResultOf<Q extends keyof JobPayloads> = JobPayloads[Q]['result'];
