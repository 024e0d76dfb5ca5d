import { Injectable, Logger } from '@nestjs/common';
import { DigestJob, DigestResult } from '@app/contracts';
import { classifyRewrite } from '@app/kernel';
import { LlmClient, LlmError } from '@app/llm';
import { FUSE_GRACE_MS, remainingBudget } from '../fuse/remaining-budget';
import { digestPrompt } from './digest-prompt';

/**
 * Digest rewrite (docs/contract.md#digest-rewrite): one planner call, then the kernel keeps only bullets citing served
 * URIs.
 * Every model failure becomes a `failed` result (the gateway leaves `rendered` intact); whether the
 * fuse blew is the gateway's call, so `timeout` is never reported from here.
 */
@Injectable()
export class DigestService {
  private readonly logger = new Logger(DigestService.name);

  constructor(private readonly llm: LlmClient) {}

  /** `withdrawn`: aborted when the gateway no longer waits (the model call is aborted with it). */
  async digest(job: DigestJob, enqueuedAt?: number, withdrawn?: AbortSignal): Promise<DigestResult> {
    const left = remainingBudget(job.timeoutMs, enqueuedAt);
    if (left <= 0) return noAnswer(`waited past its ${job.timeoutMs} ms fuse in the queue`);
    let answer: { text: string; usage: DigestResult['usage'] };
    try {
      const timeoutMs = left + FUSE_GRACE_MS;
      answer = await this.llm.complete(digestPrompt(job), { timeoutMs, model: 'planner', signal: withdrawn });
    } catch (err) {
      // Withdrawn: no answer for nobody; the processor base reports the job as withdrawn.
      if (!(err instanceof LlmError) || withdrawn?.aborted) throw err;
      this.logger.warn(`digest failed: ${err.kind}: ${err.message}`);
      return noAnswer(`${err.kind}: ${err.message}`);
    }
    const { digest, status } = classifyRewrite(answer.text, job.maxBullets, job.validUris);
    if (status === 'failed') return failed('the answer held no bullet citing a served URI', answer.usage);
    return { status, digest, usage: answer.usage };
  }
}

function failed(error: string, usage: DigestResult['usage']): DigestResult {
  return { status: 'failed', digest: '', usage, error };
}

/** A failure without an answer from the model (a failed or late call): what the gateway's digest circuit counts. */
function noAnswer(error: string): DigestResult {
  return { ...failed(error, null), noAnswer: true };
}
