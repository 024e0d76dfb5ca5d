/**
 * `BENCH_OUTAGE_SCENARIOS=tenant npm run bench:outage`: one tenant whose model calls fail beside one whose
 * calls are answered (docs/limits-and-security.md, "A model that stops answering", each account's own
 * circuit). Tenant A's and tenant B's clients (BENCH_OUTAGE_CLIENTS / 2 each) ask for context with query
 * expansion (a session with one message) for BENCH_OUTAGE_TENANT_SECONDS (default 60), on one standalone
 * process (api_key mode, default fuses and breaker: 5 s expansion fuse, 5 failures, 30 s cool-down) on
 * PGlite and on PostgreSQL; the provider holds every planner call of A's (its message names the narwhal)
 * and answers B's at once. Printed per store: A's requests answered, those that waited out the fuse, p50 /
 * p99, the planner calls the provider received for A and the seconds it spent on them (each from its
 * arrival until closed, the run's end at most); B's requests answered, expanded, p50 / p99.
 */
import { FakeLlmRequest, FakeLlmServer } from '@app/testing';
import { api, deploy, pct } from './fair-support';
import { BenchStore } from './standalone';

const SECONDS = Number(process.env.BENCH_OUTAGE_TENANT_SECONDS ?? 60);
/** A request slower than this waited for the expansion's fuse (5 s) rather than skipping it. */
const SLOW_MS = 4000;

const isA = (req: FakeLlmRequest) => req.messages.some((m) => m.content.includes('narwhal'));

export interface TenantRow {
  store: BenchStore;
  aAnswered: number;
  aSlow: number;
  aP50: number;
  aP99: number;
  aCalls: number;
  aProviderS: number;
  bAnswered: number;
  bExpanded: number;
  bP50: number;
  bP99: number;
}

export async function tenantRun(
  target: { store: BenchStore; pgBase?: string },
  llm: FakeLlmServer,
  clients: number,
): Promise<TenantRow> {
  const d = await deploy(target.store, { LLM_BASE_URL: llm.url, LLM_MODEL: 'bench-model' }, 1, target.pgBase);
  try {
    const tenants = [
      { key: d.keysA[0], topic: 'narwhal', memory: 'The narwhal is a toothed whale with one long spiral tusk.' },
      { key: d.keyB, topic: 'lighthouse', memory: 'The lighthouse keeper retires in May; the lamp is automated.' },
    ];
    for (const t of tenants) {
      const w = await api(d.url, '/api/v1/content/write', t.key, {
        uri: `viking://resources/${t.topic}.md`,
        content: t.memory,
        mode: 'create',
        wait: true,
      });
      if (w.status !== 200) throw new Error(`seed write answered ${w.status}`);
      await api(d.url, '/api/v1/sessions', t.key, { session_id: 's' });
      await api(d.url, '/api/v1/sessions/s/messages', t.key, {
        role: 'user',
        content: `Tell me about the ${t.topic}.`,
      });
    }
    llm.reset();
    llm.respondWith((req) =>
      isA(req) ? { text: '{"queries": []}', delayMs: 120_000 } : '{"queries": ["lighthouse keeper"]}',
    );
    const seen = tenants.map(() => ({ latencies: [] as number[], expanded: 0 }));
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        const t = c % 2;
        while (Date.now() < until) {
          const started = Date.now();
          const r = await api(d.url, '/api/v1/search/search', tenants[t].key, {
            mode: 'context',
            query: `what did we say about the ${tenants[t].topic}?`,
            session_id: 's',
            query_expansion: 'auto',
            dedup_turns: 0,
          });
          if (r.status !== 200) continue;
          seen[t].latencies.push(Date.now() - started);
          if (r.body?.result?.stats?.query_expansion === 'used') seen[t].expanded++;
        }
      }),
    );
    const aCalls = llm.requests.filter(isA);
    const [a, b] = seen;
    return {
      store: target.store,
      aAnswered: a.latencies.length,
      aSlow: a.latencies.filter((ms) => ms >= SLOW_MS).length,
      aP50: pct(a.latencies, 50),
      aP99: pct(a.latencies, 99),
      aCalls: aCalls.length,
      aProviderS: Math.round(
        aCalls.reduce((sum, r) => sum + Math.min(r.abandonedAfterMs ?? Infinity, until - r.receivedAt), 0) / 1000,
      ),
      bAnswered: b.latencies.length,
      bExpanded: b.expanded,
      bP50: pct(b.latencies, 50),
      bP99: pct(b.latencies, 99),
    };
  } finally {
    await d.stop();
  }
}

export function printTenant(rows: TenantRow[], clients: number): void {
  if (rows.length === 0) return;
  console.log(
    `\n${clients / 2} clients of tenant A (the provider holds its planner calls) and ${clients / 2} of tenant B, ${SECONDS} s, expansion fuse 5 s\n`,
  );
  console.log(
    '| store | A: requests answered | A: waited out the fuse | A: p50 / p99 ms | A: planner calls | A: provider seconds | B: requests answered | B: expanded | B: p50 / p99 ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.store} | ${r.aAnswered} | ${r.aSlow} | ${r.aP50} / ${r.aP99} | ${r.aCalls} | ${r.aProviderS} | ${r.bAnswered} | ${r.bExpanded} | ${r.bP50} / ${r.bP99} |`,
    );
}
