import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { JobBus, ModelBudget } from '@app/queue';
import { OutboxRepository } from '@app/store';

/** Prometheus metrics of this process: HTTP requests by route, queue depths, model calls, Node defaults. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'muninn_http_requests_total',
    help: 'HTTP requests',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'muninn_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly refusals = new Counter({
    name: 'muninn_refusals_total',
    help: 'Requests and MCP tool calls refused at a capacity limit (details.limit: key, account, inflight, scans, index_backlog, commit_backlog, account_nodes, …)',
    labelNames: ['limit', 'status'],
    registers: [this.registry],
  });

  private readonly idempotency = new Counter({
    name: 'muninn_idempotency_total',
    help: 'Writes sent with an Idempotency-Key (or MCP tool calls with a key in _meta), by outcome (kept, kept_waiting, resumed, still_waiting, released, replayed, in_progress, different_request, reply_lost, …)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  private readonly imports = new Counter({
    name: 'muninn_account_imports_total',
    help: "Account imports by outcome: imported (whole), refused (removed whole, or never begun), abandoned (its gateway stopped: removed by this gateway's sweep)",
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  private readonly drops = new Counter({
    name: 'muninn_http_connections_dropped_total',
    help: 'Connections closed as they arrived because the gateway already held MUNINN_HTTP_MAX_CONNECTIONS',
    registers: [this.registry],
  });

  constructor(bus: JobBus, budget: ModelBudget, outbox: OutboxRepository) {
    collectDefaultMetrics({ register: this.registry });
    budget.metrics.registerOn(this.registry);
    new Gauge({
      name: 'muninn_queue_depth',
      help: 'Jobs waiting or running per queue',
      labelNames: ['queue'],
      registers: [this.registry],
      async collect() {
        const depths = await bus.depths().catch(() => ({}) as Record<string, number>);
        for (const [queue, n] of Object.entries(depths)) this.set({ queue }, n);
      },
    });
    // Written files no search finds while they stay set aside (docs/architecture.md, "A job that kills its worker").
    new Gauge({
      name: 'muninn_index_held_files',
      help: 'Files set aside because their index job took down its worker MUNINN_INDEX_CRASH_LIMIT times',
      registers: [this.registry],
      async collect() {
        const held = await outbox.heldFiles().catch(() => null);
        if (held !== null) this.set(held);
      },
    });
  }

  /** Records one finished request (called from the HTTP server's response hook), and the limit it was refused at. */
  observe(method: string, route: string, status: number, seconds: number, refusedAt?: string) {
    this.requests.inc({ method, route, status: String(status) });
    this.latency.observe({ method, route }, seconds);
    if (refusedAt) this.refused(refusedAt, status);
  }

  /** Counts one write sent with an Idempotency-Key by what became of its key. */
  idempotent(outcome: string) {
    this.idempotency.inc({ outcome });
  }

  /** Counts one account import by its outcome (docs/limits-and-security.md, "Importing an account"). */
  imported(outcome: 'imported' | 'refused' | 'abandoned') {
    this.imports.inc({ outcome });
  }

  /** Counts one connection closed on arrival at the connection bound. */
  dropped() {
    this.drops.inc();
  }

  /** Counts one refusal at a named limit: an HTTP response, or an MCP tool call answered as a tool error. */
  refused(limit: string, status: number) {
    this.refusals.inc({ limit, status: String(status) });
  }
}
