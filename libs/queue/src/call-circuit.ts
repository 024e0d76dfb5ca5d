import { Logger } from '@nestjs/common';
import {
  BrokenCircuitError,
  circuitBreaker,
  CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  handleAll,
} from 'cockatiel';
import type { SharedCircuit } from './circuit-share';

/** A call's result that counts as a failure (a digest answers `failed` rather than throwing). */
class FailedResult<T> extends Error {
  constructor(readonly value: T) {
    super('the model call failed');
  }
}

/** What {@link CallCircuit.run} did: the call's result, or nothing (the circuit was open). */
export type BreakerRun<T> = { skipped: true } | { skipped: false; value: T };

/**
 * The circuit of one kind of request-path call to a provider, in one process (docs/limits-and-security.md,
 * "A model that stops answering"): a gateway's query expansion and digest, a retriever's query embedding.
 * On cockatiel's circuit breaker: after `failures` calls in a row failed or timed out, calls are not made
 * for `cooldownMs` (each request degrades at once, as it would after the fuse); then the first request's
 * call finds out, and the others go without it meanwhile rather than wait for it; its success closes the
 * circuit, its failure opens it again. `failures` 0: no circuit.
 *
 * With a `share`, the circuit's opening is told to the deployment's other processes, and theirs hold this
 * one open (cockatiel's isolation) for the cool-down they announce; it closes after it, and the next call
 * finds out (docs/limits-and-security.md, "A model that stops answering").
 */
export class CallCircuit {
  private readonly policy: CircuitBreakerPolicy | null;

  /** `onChange` hears the circuit open (true) and close (false), for the metrics. */
  constructor(
    name: string,
    failures: number,
    cooldownMs: number,
    onChange: (open: boolean) => void = () => undefined,
    share: SharedCircuit | null = null,
    logger = new Logger(CallCircuit.name),
  ) {
    if (failures <= 0) {
      this.policy = null;
      return;
    }
    const policy = circuitBreaker(handleAll, { halfOpenAfter: cooldownMs, breaker: new ConsecutiveBreaker(failures) });
    this.policy = policy;
    policy.onBreak((reason) => {
      // Held open for another process: that one said so in its log, and says it again after its cool-down.
      if ('isolated' in reason) return onChange(true);
      logger.warn(`${name}: ${failures} calls in a row failed; none made for ${cooldownMs / 1000} s`);
      share?.announce(cooldownMs);
      onChange(true);
    });
    share?.listen((ms) => {
      if (policy.state === CircuitState.Isolated) logger.debug(`${name}: held open by another process again`);
      else logger.warn(`${name}: another process's calls failed; none made here for ${ms / 1000} s`);
      const hold = policy.isolate();
      setTimeout(() => hold.dispose(), ms).unref();
    });
    policy.onReset(() => {
      logger.log(`${name}: the provider answers again; calls resume`);
      onChange(false);
    });
    onChange(false);
  }

  /** Runs `call` unless the circuit is open; `failed` marks a returned result as a failure. */
  async run<T>(call: () => Promise<T>, failed: (value: T) => boolean = () => false): Promise<BreakerRun<T>> {
    if (!this.policy) return { skipped: false, value: await call() };
    // While one call finds out whether the model answers again, the others do not wait for it.
    if (this.policy.state === CircuitState.HalfOpen) return { skipped: true };
    try {
      const value = await this.policy.execute(async () => {
        const v = await call();
        if (failed(v)) throw new FailedResult(v);
        return v;
      });
      return { skipped: false, value };
    } catch (err) {
      if (err instanceof BrokenCircuitError) return { skipped: true };
      if (err instanceof FailedResult) return { skipped: false, value: err.value as T };
      throw err;
    }
  }
}
