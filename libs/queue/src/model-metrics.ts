import { Counter, Gauge, Registry } from 'prom-client';
import { CallCircuit } from './call-circuit';
import type { CircuitShare } from './circuit-share';

/**
 * Which model call: a commit's extraction, a context request's query expansion or digest (gateway), a
 * search's query embedding (`embed`) and an index job's embedding (`index_embed`) (retriever).
 */
export type ModelCall = 'extract' | 'expand' | 'digest' | 'embed' | 'index_embed';
/**
 * How a model call ended: answered, failed, past its fuse, or not made because the budget was spent, the
 * process's circuit for that call was open (the provider failing every call of late) or the account was
 * held (its own calls failing of late), or let go unanswered because that circuit opened, or that hold
 * began, while the call was in flight (`cut`), or because the request's client went away (`gone`).
 */
export type ModelCallOutcome = 'ok' | 'failed' | 'timeout' | 'budget' | 'open' | 'held' | 'cut' | 'gone';

/**
 * What the deployment's model calls cost, for `/metrics` (docs/operations.md, "Metrics"): tokens and
 * calls by kind, and the calls the budget refused. Not by account: an account label would grow the
 * series with the tenants; `GET /api/v1/system/status` shows each account its own day. Registered on
 * the gateway's `/metrics` registry and on the extractor's and the retriever's (`MUNINN_METRICS_PORT`).
 */
export class ModelMetrics {
  private readonly tokens = new Counter({
    name: 'muninn_model_tokens_total',
    help: 'Model tokens (prompt and answer) of the calls, by call: the usage the provider reported, else the estimate',
    labelNames: ['call'],
    registers: [],
  });
  private readonly calls = new Counter({
    name: 'muninn_model_calls_total',
    help: "Model calls by call and outcome (ok, failed, timeout; not made: budget, the account spent its day; open, the circuit was open; held, the account's own calls failed of late; let go unanswered: cut, the circuit opened or the account's hold began, gone, the request's client went away)",
    labelNames: ['call', 'outcome'],
    registers: [],
  });

  private readonly circuitGauge = new Gauge({
    name: 'muninn_model_circuit_open',
    help: "1 while this process's circuit for the call is open, held open for another process's, or finding out (calls not made), else 0: the gateway's expand and digest, the retriever's embed and index_embed",
    labelNames: ['call'],
    registers: [],
  });
  private readonly circuits = new Map<ModelCall, CallCircuit>();
  private readonly heldGauge = new Gauge({
    name: 'muninn_model_accounts_held',
    help: "Accounts whose calls this process does not make now, their own calls having failed in a row (the circuit of each account; the call's circuit stays closed for the others), by call",
    labelNames: ['call'],
    registers: [],
    collect: () => {
      for (const [call, circuit] of this.circuits) this.heldGauge.set({ call }, circuit.heldAccounts);
    },
  });

  /** @param share how this process's circuits hear the deployment's other processes' (none without Redis) */
  constructor(private readonly share: CircuitShare | null = null) {}

  /** Serves these figures on a process's metrics registry. */
  registerOn(registry: Registry): void {
    registry.registerMetric(this.tokens);
    registry.registerMetric(this.calls);
    registry.registerMetric(this.circuitGauge);
    registry.registerMetric(this.heldGauge);
  }

  /** This process's circuit for `call` opened (true) or closed (false). */
  private circuitOpen(call: ModelCall, open: boolean): void {
    this.circuitGauge.set({ call }, open ? 1 : 0);
  }

  /**
   * This process's circuit for `call` (`name` in its log lines), on the deployment's breaker settings
   * (`MUNINN_MODEL_BREAKER_*`), shown as `muninn_model_circuit_open{call}`.
   */
  newCircuit(
    call: ModelCall,
    name: string,
    settings: { breakerFailures: number; breakerCooldownMs: number },
  ): CallCircuit {
    const circuit = new CallCircuit(
      name,
      settings.breakerFailures,
      settings.breakerCooldownMs,
      (open) => this.circuitOpen(call, open),
      this.share?.of(call) ?? null,
    );
    this.circuits.set(call, circuit);
    return circuit;
  }

  /** One call's end: its outcome, and the tokens counted for it. */
  ended(call: ModelCall, outcome: ModelCallOutcome, tokens: number): void {
    this.calls.inc({ call, outcome });
    if (tokens > 0) this.tokens.inc({ call }, tokens);
  }
}
