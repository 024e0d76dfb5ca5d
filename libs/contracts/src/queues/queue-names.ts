/**
 * Queue names. DO NOT RENAME: they are the wire between processes, and jobs already waiting in Redis
 * under an old name would be orphaned. A rename needs a migration plan (drain, then switch).
 */
export enum QueueName {
  /** Retriever: search the store inside given targets. Latency-critical, kept apart from indexing. */
  Find = 'find',
  /** Retriever: embed written content, refresh parent directory sidecars. */
  Index = 'index',
  /** Retriever: recompute a directory's summary; coalesced per directory, so a busy one is refreshed once per window. */
  Sidecar = 'sidecar',
  /** Retriever: grep or glob over a caller's tree (a regex scan is retrieval work, kept off the gateway). */
  Scan = 'scan',
  /** Assembler: read bodies, plan tiers within the budget, render. */
  Assemble = 'assemble',
  /** Rewriter: query expansion through the planner LLM. */
  Expand = 'expand',
  /** Rewriter: cited digest of a rendered block. */
  Digest = 'digest',
  /** Extractor: archive summary and memory extraction of a session commit (one job per archive). */
  Extract = 'extract',
  /** Extractor: a session's idle commit, delayed until its idle timeout (one waiting per session). */
  SessionIdle = 'session-idle',
  /** Extractor: `POST /sessions/{id}/extract`, extraction over the live messages without archiving (awaited). */
  SessionExtract = 'session-extract',
}
