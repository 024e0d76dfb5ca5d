import { KernelError, KernelErrorCode } from '@app/kernel';

/**
 * How many of one long admin operation a gateway runs at once (exports hold a store connection, imports
 * a line and a batch in memory: docs/limits-and-security.md, "Exporting an account", "Importing an
 * account"). Beyond the bound: 429 RESOURCE_EXHAUSTED naming the operation and its setting.
 */
export class GatewaySlots {
  private running = 0;

  constructor(
    /** `details.limit` of the refusal, and what the message counts. */
    private readonly limit: 'exports' | 'imports',
    private readonly max: number,
    /** The setting that bounds it, for the message. */
    private readonly setting: string,
  ) {}

  /** Takes a slot (429 when none is free); the returned release may be called more than once. */
  take(): () => void {
    if (this.running >= this.max)
      throw new KernelError(
        KernelErrorCode.ResourceExhausted,
        `${this.max} ${this.limit} are running on this gateway (${this.setting}); retry once one has ended`,
        { limit: this.limit, max: this.max, retry_after_s: 5 },
      );
    this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
    };
  }
}
