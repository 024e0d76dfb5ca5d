/**
 * Rewriter scale-out benchmark (`npm run bench:rewrite`, after `nest build rewriter`).
 * A fake LLM answers every call after a fixed delay. For 1, 2 and 4 rewriter worker PROCESSES
 * (dist/apps/rewriter/src/main.js, same queue prefix, Redis and LLM), an open-loop client keeps a mixed
 * load on the real BullMQ queues: half digest jobs, half cheap `find` jobs served by one retriever
 * process (without rewriters only the finds are sent). Prints digest throughput, the latency of the
 * cheap jobs and the CPU each party used, per setting.
 *   node <out>/bench/rewrite-bench.js [--procs 1,2,4] [--seconds 15] [--concurrency 2] [--rate 40] [--llm-ms 500]
 *   BENCH_TRACE=1 prints where slow find jobs spent their time.
 */
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job, Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { QueueName } from '../libs/contracts/src/queues/queue-names';
import type { DigestJob, DigestResult } from '../libs/contracts/src/queues/rewrite-jobs';
import { startFakeLlmServer } from '../libs/testing/src/fake-llm-server';

const repo = process.cwd(); // npm scripts run from the repository root
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i].replace(/^--/, ''), process.argv[i + 1] ?? '');
const PROCS = (args.get('procs') ?? '1,2,4').split(',').map(Number);
const SECONDS = Number(args.get('seconds') ?? 15);
// Low on purpose: 4 processes x 2 slots x 2 calls/s = 16 digests/s stay below the 20/s offered, so every
// setting is saturated, while one PGlite retriever on a small machine keeps up with the 20 finds/s.
const CONCURRENCY = Number(args.get('concurrency') ?? 2);
const RATE = Number(args.get('rate') ?? 40); // requests per second, every other one a digest
const LLM_MS = Number(args.get('llm-ms') ?? 500);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const FUSE_MS = 30_000;
const URI = 'viking://user/default/memories/events/bench.md';

interface Setting {
  label: string;
  rewriters: number;
}
interface Row {
  cpu: string;
  label: string;
  digests: number;
  digestFailed: number;
  digestPerSec: number;
  digestP50: number;
  finds: number;
  findP50: number;
  findP99: number;
  findMax: number;
}

function connection(url: string) {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    db: Number(u.pathname.slice(1) || 0),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    maxRetriesPerRequest: null,
  };
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** CPU seconds (user + system) a child has used so far, from /proc (Linux). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const get = (k: string) => Number(new RegExp(`${k}:([0-9.]+)`).exec(info)?.[1] ?? NaN);
  return get('used_cpu_sys') + get('used_cpu_user');
}

function startApp(app: 'rewriter' | 'retriever', env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [join(repo, `dist/apps/${app}/src/main.js`)], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (d: Buffer) => process.stderr.write(`[${app} ${child.pid}] ${d}`));
  return child;
}

async function stop(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((r) => {
          if (c.exitCode !== null || c.signalCode !== null) return r();
          c.once('exit', () => r());
          c.kill('SIGTERM');
          setTimeout(() => c.kill('SIGKILL'), 15_000).unref();
        }),
    ),
  );
}

async function waitWorkers(queue: Queue, n: number, ms = 60_000): Promise<void> {
  const until = Date.now() + ms;
  while ((await queue.getWorkersCount()) < n) {
    if (Date.now() > until) throw new Error(`${queue.name}: fewer than ${n} workers after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function call<T>(queue: Queue, events: QueueEvents, data: unknown, ttl: number): Promise<T> {
  const job: Job = await queue.add(queue.name, data, {
    attempts: 1,
    removeOnComplete: { age: 60 },
    removeOnFail: { age: 600 },
  });
  return (await job.waitUntilFinished(events, ttl)) as T;
}

async function run(setting: Setting, llmUrl: string): Promise<Row> {
  const prefix = `bench-rewrite-${randomBytes(4).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'muninn-rewrite-bench-'));
  const base = {
    REDIS_URL,
    MUNINN_QUEUE_PREFIX: prefix,
    MUNINN_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    LLM_BASE_URL: llmUrl,
    LLM_MODEL: 'bench-model',
  };
  const children = [
    startApp('retriever', { ...base, MUNINN_WORKER_CONCURRENCY: '16' }),
    ...Array.from({ length: setting.rewriters }, () =>
      startApp('rewriter', { ...base, MUNINN_WORKER_CONCURRENCY: String(CONCURRENCY) }),
    ),
  ];
  const conn = connection(REDIS_URL);
  const redis = new Redis(REDIS_URL);
  const digestQ = new Queue(QueueName.Digest, { connection: conn, prefix });
  const findQ = new Queue(QueueName.Find, { connection: conn, prefix });
  const digestEv = new QueueEvents(QueueName.Digest, { connection: conn, prefix });
  const findEv = new QueueEvents(QueueName.Find, { connection: conn, prefix });
  for (const emitter of [digestQ, findQ, digestEv]) emitter.setMaxListeners(0);
  findEv.setMaxListeners(0);
  try {
    await Promise.all([digestEv.waitUntilReady(), findEv.waitUntilReady()]);
    await Promise.all([waitWorkers(digestQ, setting.rewriters), waitWorkers(findQ, 1)]);
    const digestJob = (): DigestJob => ({
      query: 'what happened?',
      rendered: `<memory uri="${URI}" type="events">x</memory>`,
      validUris: [URI],
      maxBullets: 3,
      timeoutMs: FUSE_MS,
    });
    const findJob = {
      identity: { accountId: 'default', userId: 'default', role: 'root', actorPeerId: null },
      query: 'bench',
      targets: ['viking://user/default/memories'],
      filter: null,
      levels: null,
      limit: 5,
      scoreThreshold: null,
    };
    await call(findQ, findEv, findJob, 20_000); // warm-up: the store opens on first use
    if (setting.rewriters) await call(digestQ, digestEv, digestJob(), FUSE_MS);

    // Open loop: requests arrive at a fixed rate whatever the workers do, alternating digest and find.
    const cpu0 = {
      kids: children.map((c) => cpuSeconds(c.pid)),
      self: process.cpuUsage(),
      redis: await redisCpu(redis),
    };
    const start = Date.now();
    const end = start + SECONDS * 1000;
    const digestTimes: number[] = [];
    const findTimes: number[] = [];
    const finds: Promise<void>[] = [];
    let digestFailed = 0;
    let issued = 0;
    const digest = async () => {
      const t = Date.now();
      const r = await call<DigestResult>(digestQ, digestEv, digestJob(), FUSE_MS).catch(() => null);
      if (Date.now() > end) return; // finished after the window: not counted
      if (r?.status === 'ok') digestTimes.push(Date.now() - t);
      else digestFailed++;
    };
    const find = async () => {
      const t = process.hrtime.bigint();
      const job: Job = await findQ.add(findQ.name, findJob, { attempts: 1, removeOnComplete: { age: 60 } });
      await job.waitUntilFinished(findEv, 20_000);
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      findTimes.push(ms);
      if (process.env.BENCH_TRACE && ms > 150) {
        const j = await Job.fromId(findQ, job.id!);
        console.log(
          `  slow find at +${(Date.now() - ms - start) | 0} ms: ${ms.toFixed(0)} ms; queued ${(j?.processedOn ?? 0) - (j?.timestamp ?? 0)} ms, ran ${(j?.finishedOn ?? 0) - (j?.processedOn ?? 0)} ms, notified ${Date.now() - (j?.finishedOn ?? 0)} ms ago`,
        );
      }
    };
    while (Date.now() < end) {
      const due = Math.floor(((Date.now() - start) * RATE) / 1000);
      for (; issued < due; issued++) {
        if (issued % 2 === 1) finds.push(find());
        else if (setting.rewriters > 0) void digest();
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(finds);
    const kids = children.map((c, i) => cpuSeconds(c.pid) - cpu0.kids[i]);
    const self = process.cpuUsage(cpu0.self);
    const rewriterCpu = kids.slice(1).reduce((a, b) => a + b, 0);
    const cpu =
      `CPU s: retriever ${kids[0].toFixed(1)}, rewriters ${rewriterCpu.toFixed(1)}, ` +
      `bench+fake LLM ${((self.user + self.system) / 1e6).toFixed(1)}, redis ${((await redisCpu(redis)) - cpu0.redis).toFixed(1)}; ` +
      `load average ${loadavg()[0].toFixed(1)} on ${cpus().length} CPUs`;
    const seconds = (end - start) / 1000;
    digestTimes.sort((a, b) => a - b);
    findTimes.sort((a, b) => a - b);
    return {
      cpu,
      label: setting.label,
      digests: digestTimes.length,
      digestFailed,
      digestPerSec: digestTimes.length / seconds,
      digestP50: pct(digestTimes, 50),
      finds: findTimes.length,
      findP50: pct(findTimes, 50),
      findP99: pct(findTimes, 99),
      findMax: findTimes[findTimes.length - 1] ?? NaN,
    };
  } finally {
    await stop(children);
    await Promise.allSettled([digestEv.close(), findEv.close()]);
    await Promise.allSettled([digestQ.obliterate({ force: true }), findQ.obliterate({ force: true })]);
    await Promise.allSettled([digestQ.close(), findQ.close(), redis.quit()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const llm = await startFakeLlmServer({
    fallback: {
      text: `- the bench event happened source: ${URI}`,
      delayMs: LLM_MS,
      usage: { prompt_tokens: 100, completion_tokens: 10 },
    },
  });
  const settings: Setting[] = [
    { label: 'no rewriter running', rewriters: 0 },
    ...PROCS.map((n) => ({ label: `${n} rewriter process${n > 1 ? 'es' : ''}`, rewriters: n })),
  ];
  console.log(
    `rewrite bench: fake LLM ${LLM_MS} ms/call, ${CONCURRENCY} concurrent jobs per rewriter process, ` +
      `${RATE} requests/s open loop (${RATE / 2}/s digest + ${RATE / 2}/s find), ${SECONDS} s per setting, Redis ${REDIS_URL}`,
  );
  console.log(
    `ceiling per rewriter process: ${CONCURRENCY} x 1000/${LLM_MS} = ${((CONCURRENCY * 1000) / LLM_MS).toFixed(1)} digests/s`,
  );
  const rows: Row[] = [];
  try {
    for (const s of settings) {
      const row = await run(s, llm.url);
      rows.push(row);
      console.log(
        `${row.label.padEnd(22)} digests ${String(row.digests).padStart(5)} (${row.digestPerSec.toFixed(1).padStart(5)}/s, p50 ${fmt(row.digestP50)}, failed ${row.digestFailed})` +
          `   find jobs ${String(row.finds).padStart(6)}  p50 ${fmt(row.findP50)}  p99 ${fmt(row.findP99)}  max ${fmt(row.findMax)}`,
      );
      console.log(`${''.padEnd(22)} ${row.cpu}`);
    }
  } finally {
    await llm.close();
  }
  const one = rows.find((r) => r.label.startsWith('1 '));
  if (one)
    for (const r of rows.filter((x) => x !== one && x.digests > 0))
      console.log(`${r.label}: ${(r.digestPerSec / one.digestPerSec).toFixed(2)}x the digest throughput of 1 process`);
}

function fmt(ms: number): string {
  return Number.isNaN(ms) ? '   -   ' : `${ms.toFixed(1).padStart(6)} ms`;
}

// Digests still queued after the last window are abandoned, not awaited.
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
