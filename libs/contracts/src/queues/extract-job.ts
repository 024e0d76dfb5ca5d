/**
 * Payload of an `extract` job: turn one archive of a session into memories and its summary. Its job id
 * is the task id, so a replayed enqueue of the same commit is a no-op (docs/sessions.md "Extraction").
 */
export interface ExtractJob {
  accountId: string;
  userId: string;
  sessionId: string;
  archiveIndex: number;
  taskId: string;
  /** Event tags of this commit (`k=v`), attached to event memories. */
  eventTags: string[];
  /** The session's normalised memory_policy at commit time (null or absent: the default). */
  memoryPolicy?: unknown;
  /**
   * Token estimate of the archived messages: the job's weight in the extract queue's fair order
   * (docs/limits-and-security.md, "Fair background queues"). Absent on jobs made before it was
   * recorded: they weigh one.
   */
  archivedTokens?: number;
}

/** Result of an `extract` job (the task record holds the full result). */
export interface ExtractResult {
  status: 'completed' | 'failed' | 'skipped';
}

/** Payload of a `session-idle` job: commit the session if it has been idle past its policy's timeout. */
export interface SessionIdleJob {
  accountId: string;
  userId: string;
  sessionId: string;
}

export interface SessionIdleResult {
  status: 'committed' | 'rescheduled' | 'skipped';
}

/** Payload of a `session-extract` job: extract memories from the live messages now (nothing archived). */
export interface ManualExtractJob {
  accountId: string;
  userId: string;
  sessionId: string;
}

/** One memory file a manual extraction wrote, as the contract lists it. */
export interface ExtractedContext {
  uri: string;
  category: 'memory_write' | 'memory_edit';
  context_type: 'memory';
}

export interface ManualExtractResult {
  contexts: ExtractedContext[];
}
