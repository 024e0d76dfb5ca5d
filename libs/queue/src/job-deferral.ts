/**
 * A durable job that cannot run yet and should not count as a failed attempt: its queue puts it back for
 * `delayMs` (BullMQ: delayed with its attempts untouched; in process: run again after the pause) and its
 * worker takes other work meanwhile. Thrown by the processor base when a processor names the error it got
 * as a deferral (docs/operations.md, "Queue processors").
 */
export class JobDeferred extends Error {
  constructor(
    readonly delayMs: number,
    reason: string,
  ) {
    super(reason);
    this.name = 'JobDeferred';
  }
}
