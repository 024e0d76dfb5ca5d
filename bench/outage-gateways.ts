/**
 * `BENCH_OUTAGE_SCENARIOS=gateways npm run bench:outage`: the model provider holds every call while
 * BENCH_OUTAGE_GATEWAYS gateways of one deployment (default 4: a standalone process, which also runs the
 * workers, and 3 gateway processes on its PostgreSQL database and queue prefix) serve context requests
 * with expansion for BENCH_OUTAGE_GATEWAY_SECONDS (default 60), with each gateway's circuits its own
 * (`MUNINN_MODEL_BREAKER_SHARED=false`, as before) and shared through Redis (the default); the default
 * 5 failures and a 10 s cool-down (so the run sees several). Load is uneven, as behind a balancer with a
 * busy client pinned: half of BENCH_OUTAGE_CLIENTS clients ask the first gateway, the rest are spread
 * over the others; the clients start one after another over one fuse (5 s), as real traffic arrives, so
 * calls are in flight at any moment, not in waves. Printed: requests answered, those that waited out the
 * 5 s expansion fuse, those that waited a second or more (a call let go when a circuit opened), the
 * seconds all requests spent waiting on the provider, p50 / p99, the calls the provider received, and the
 * seconds the provider spent on them (each call from its arrival until the rewriter closed it: at its own fuse,
 * or at once when its job was withdrawn, the run's end at most). PostgreSQL only: one process owns a PGlite folder, so a deployment
 * on PGlite has one gateway and nobody to share a circuit with. docs/limits-and-security.md, "A model
 * that stops answering".
 */
import { FakeLlmServer } from '@app/testing';
import { BenchStore, startGateway, startStandalone } from './standalone';

const GATEWAYS = Number(process.env.BENCH_OUTAGE_GATEWAYS ?? 4);
const SECONDS = Number(process.env.BENCH_OUTAGE_GATEWAY_SECONDS ?? 60);
const COOLDOWN_S = 10;
const FUSE_MS = 5000;
/** A request slower than this waited for the expansion's fuse (5 s) rather than skipping it. */
const SLOW_MS = 4000;
/** A request slower than this waited on the provider (a search alone answers in tens of milliseconds). */
const WAITED_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface GatewaysRow {
  shared: boolean;
  answered: number;
  slow: number;
  waited: number;
  waitedS: number;
  p50: number;
  p99: number;
  modelCalls: number;
  /** Seconds the provider spent on calls within the run: each from its arrival to its close (or the run's end). */
  providerS: number;
}

type Call = (url: string, path: string, body: unknown) => Promise<{ status: number; body: any }>;

export async function gatewaysRun(
  target: { store: BenchStore; pgBase?: string },
  shared: boolean,
  llm: FakeLlmServer,
  opts: { clients: number; call: Call; ask: (url: string) => ReturnType<Call> },
): Promise<GatewaysRow> {
  const env = {
    LLM_BASE_URL: llm.url,
    LLM_MODEL: 'bench-model',
    MUNINN_MODEL_BREAKER_SHARED: String(shared),
    MUNINN_MODEL_BREAKER_COOLDOWN_S: String(COOLDOWN_S),
  };
  const app = await startStandalone(`gateways-${shared}`, target, env);
  const others: { url: string; stop(): Promise<void> }[] = [];
  try {
    for (let g = 1; g < GATEWAYS; g++) others.push(await startGateway(app, env));
    const urls = [app.url, ...others.map((o) => o.url)];
    const write = await opts.call(app.url, '/api/v1/content/write', {
      uri: 'viking://user/default/memories/events/lighthouse.md',
      content: 'The lighthouse keeper retires in May; the lamp is to be automated.',
      mode: 'create',
      wait: true,
    });
    if (write.status !== 200) throw new Error(`seed write answered ${write.status}`);
    await opts.call(app.url, '/api/v1/sessions', { session_id: 'outage' });
    await opts.call(app.url, '/api/v1/sessions/outage/messages', {
      role: 'user',
      content: 'Tell me about the lighthouse.',
    });

    llm.reset();
    llm.respondWith({ text: '{"queries": []}', delayMs: 60_000 });
    const latencies: number[] = [];
    const until = Date.now() + SECONDS * 1000;
    const half = Math.ceil(opts.clients / 2);
    await Promise.all(
      Array.from({ length: opts.clients }, async (_, c) => {
        const url = c < half || urls.length === 1 ? urls[0] : urls[1 + ((c - half) % (urls.length - 1))];
        await sleep(Math.round((c * FUSE_MS) / opts.clients));
        while (Date.now() < until) {
          const t = Date.now();
          const r = await opts.ask(url);
          if (r.status === 200) latencies.push(Date.now() - t);
        }
      }),
    );
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
    return {
      shared,
      answered: latencies.length,
      slow: latencies.filter((ms) => ms >= SLOW_MS).length,
      waited: latencies.filter((ms) => ms >= WAITED_MS).length,
      waitedS: Math.round(latencies.filter((ms) => ms >= WAITED_MS).reduce((a, b) => a + b, 0) / 1000),
      p50: at(50),
      p99: at(99),
      modelCalls: llm.requests.length,
      providerS: Math.round(
        llm.requests.reduce((sum, r) => sum + Math.min(r.abandonedAfterMs ?? Infinity, until - r.receivedAt), 0) / 1000,
      ),
    };
  } finally {
    await Promise.all(others.map((o) => o.stop()));
    await app.stop();
  }
}

export function printGateways(rows: GatewaysRow[], clients: number): void {
  if (rows.length === 0) return;
  console.log(
    `\n${GATEWAYS} gateways of one deployment (PostgreSQL), ${clients} clients (half on the first gateway, started over one fuse), ${SECONDS} s of a provider that holds every call; expansion fuse 5 s, circuit 5 failures, ${COOLDOWN_S} s cool-down\n`,
  );
  console.log(
    '| circuits | requests answered | waited out the fuse | waited ≥ 1 s | seconds waited | p50 ms | p99 ms | model calls | provider seconds |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.shared ? 'shared (default)' : 'per process'} | ${r.answered} | ${r.slow} | ${r.waited} | ${r.waitedS} | ${r.p50} | ${r.p99} | ${r.modelCalls} | ${r.providerS} |`,
    );
}
