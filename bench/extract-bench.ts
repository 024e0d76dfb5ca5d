/**
 * `npm run bench:extract`: session commits per second with 1, 2 and 4 extractor processes.
 *
 * Real processes from a fresh `dist/` (gateway, retriever, N extractors) on one PostgreSQL database
 * (MUNINN_BENCH_DATABASE_URL, else MUNINN_TEST_DATABASE_URL; required: several processes share it)
 * and Redis (REDIS_URL). The extractors call a fake OpenAI-protocol LLM that answers after a fixed
 * delay (BENCH_EXTRACT_DELAY_MS, default 250), so the model is the bottleneck, as in production.
 * Each extractor runs BENCH_EXTRACT_CONCURRENCY jobs at once (default 1, so the figure is per process).
 * BENCH_EXTRACT_COMMITS sessions (default 40) of 6 messages are posted first; then every session is
 * committed and the clock runs until every task is completed. Figures are for one noisy machine.
 * BENCH_EXTRACT_MODE=big instead times the offline extractor on one commit at the session limits
 * (bench/extract-big.ts).
 */
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createTestDatabase, freePort, startFakeLlmServer, waitHealthy } from '@app/testing';
import { bigCommitBench } from './extract-big';

const COMMITS = Number(process.env.BENCH_EXTRACT_COMMITS ?? 40);
const DELAY = Number(process.env.BENCH_EXTRACT_DELAY_MS ?? 250);
const CONCURRENCY = Number(process.env.BENCH_EXTRACT_CONCURRENCY ?? 1);
const PROCESSES = (process.env.BENCH_EXTRACT_PROCESSES ?? '1,2,4').split(',').map(Number);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One app from `dist/` (the bench runs from the repository root; the compiled bench lives elsewhere). */
function startApp(app: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [join(process.cwd(), `dist/apps/${app}/src/main.js`)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}
const stop = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null ? r() : (c.once('exit', () => r()), c.kill('SIGTERM'))));

const ANSWER = JSON.stringify({
  entities: [{ category: 'project', name: 'Bench', content: 'A benchmark project.' }],
  events: [{ event_name: 'bench talk', summary: 'Talked about the benchmark.', from: 0, to: 1 }],
  overview: '',
});

async function api(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j = (await r.json()) as any;
  if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j.error)}`);
  return j.result;
}

async function pool<T>(items: T[], width: number, fn: (t: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

async function run(n: number, base: string, llmUrl: string): Promise<{ n: number; seconds: number; rate: number }> {
  const db = await createTestDatabase(base);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    MUNINN_QUEUE_PREFIX: `bench-extract-${port}`,
    LOG_LEVEL: 'error',
  };
  const procs: ChildProcess[] = [startApp('gateway', env), startApp('retriever', env)];
  for (let i = 0; i < n; i++) {
    procs.push(
      startApp('extractor', {
        ...env,
        LLM_BASE_URL: llmUrl,
        LLM_MODEL: 'bench',
        MUNINN_WORKER_CONCURRENCY: String(CONCURRENCY),
      }),
    );
  }
  try {
    await waitHealthy(url);
    await sleep(3000); // the extractors' workers connect
    const ids = Array.from({ length: COMMITS }, (_, i) => `bench-${i}`);
    await pool(ids, 8, async (id) => {
      const messages = Array.from({ length: 6 }, (_, k) => ({
        role: k % 2 ? 'assistant' : 'user',
        content: `Message ${k} of ${id} about the Bench project.`,
      }));
      await api(url, 'POST', `/api/v1/sessions/${id}/messages/batch`, { messages });
    });
    const t0 = performance.now();
    await pool(ids, 8, async (id) => void (await api(url, 'POST', `/api/v1/sessions/${id}/commit`, {})));
    for (;;) {
      const done = await api(url, 'GET', '/api/v1/tasks?status=completed&limit=200');
      if (done.length >= COMMITS) break;
      await sleep(50);
    }
    const seconds = (performance.now() - t0) / 1000;
    return { n, seconds, rate: COMMITS / seconds };
  } finally {
    await Promise.all(procs.map(stop));
    await db.drop();
  }
}

async function main() {
  if (process.env.BENCH_EXTRACT_MODE === 'big') return bigCommitBench();
  const base = process.env.MUNINN_BENCH_DATABASE_URL ?? process.env.MUNINN_TEST_DATABASE_URL;
  if (!base) {
    console.log(
      'bench:extract needs MUNINN_BENCH_DATABASE_URL or MUNINN_TEST_DATABASE_URL (several processes share one store)',
    );
    return;
  }
  execFileSync('npx', ['nest', 'build', 'standalone'], { stdio: 'inherit' });
  const llm = await startFakeLlmServer({
    fallback: { delayMs: DELAY, text: ANSWER, usage: { prompt_tokens: 500, completion_tokens: 80 } },
  });
  const rows: { n: number; seconds: number; rate: number }[] = [];
  try {
    for (const n of PROCESSES) {
      const r = await run(n, base, llm.url);
      rows.push(r);
      console.log(`extractors=${n}: ${COMMITS} commits in ${r.seconds.toFixed(2)} s → ${r.rate.toFixed(2)} commits/s`);
    }
  } finally {
    await llm.close();
  }
  const one = rows.find((r) => r.n === 1)?.rate ?? rows[0].rate;
  console.log(`\nmodel delay ${DELAY} ms, ${CONCURRENCY} job(s) per extractor, ${COMMITS} commits\n`);
  console.log('| extractors | commits/s | scaling vs 1 | target (0.8·N) |');
  console.log('|---|---|---|---|');
  for (const r of rows)
    console.log(`| ${r.n} | ${r.rate.toFixed(2)} | ${(r.rate / one).toFixed(2)} | ${(0.8 * r.n).toFixed(1)} |`);
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
