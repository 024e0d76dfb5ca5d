/**
 * How a call's withdrawal went, for a caller that counts what the call cost (docs/limits-and-security.md,
 * "A client that goes away"): a job taken back before any worker took it never ran, so nothing it would have
 * sent (a model prompt) was sent, and a reservation made for it can be given back. The bus records the
 * withdrawal when it makes it; the caller reads the outcome once the call has rejected. A bus whose jobs start
 * as they are called (in-process) records nothing: its jobs always ran.
 */
export class WithdrawalReceipt {
  private outcome: Promise<boolean> | null = null;

  /** The bus's record of the withdrawal it made: whether the job was taken back before it started. */
  record(neverStarted: Promise<boolean>): void {
    this.outcome ??= neverStarted.catch(() => false);
  }

  /**
   * True only when the job was withdrawn before any worker started it; false when it was not withdrawn, a
   * worker already had it, or the bus could not tell (Redis away): then the job is taken to have run.
   */
  neverStarted(): Promise<boolean> {
    return this.outcome ?? Promise.resolve(false);
  }
}
