// Shared helpers of the test/e2e/context-*.e2e-spec.ts suites (docs/contract.md#tested-behaviour): seeding content over
// HTTP, reading back the `find`/`assemble` jobs a request produced (the observable fan-out), a
// contract-side token estimate and renderer, and direct access to the Redis ledger record.
import { Job, Queue } from 'bullmq';
import { Redis } from 'ioredis';
import {
  AssembleJob,
  AssembleResult,
  FindBatchJob,
  FindBatchResult,
  FindJob,
  isFindBatch,
  QueueName,
} from '@app/contracts';
import { ledgerKey } from '@app/queue';
import { TestApp, TestResponse } from '@app/testing';

export const SEARCH = '/api/v1/search/search';
export const RECALL = '/api/v1/search/recall';

export type Headers = Record<string, string>;

/** Request options: an API key (api_key mode) and/or identity and actor headers (dev mode). */
export interface As {
  key?: string;
  headers?: Headers;
}

export interface Entry {
  uri: string;
  category: string;
  score: number;
  detail: 'full' | 'overview' | 'abstract' | 'uri';
  text: string;
  origin?: string;
}

/** Dev-mode identity headers for `account/user`, plus an actor peer when given. */
export function devAs(account: string, user: string, actor?: string): As {
  return {
    headers: {
      'x-openviking-account': account,
      'x-openviking-user': user,
      ...(actor ? { 'x-openviking-actor-peer': actor } : {}),
    },
  };
}

export function withActor(as: As, actor: string): As {
  return { ...as, headers: { ...(as.headers ?? {}), 'x-openviking-actor-peer': actor } };
}

/** Writes a file and waits until it is indexed (so the next query finds it). */
export async function seed(app: TestApp, as: As, uri: string, content: string): Promise<void> {
  const r = await app.request('POST', '/api/v1/content/write', {
    ...as,
    body: { uri, content, mode: 'create', wait: true },
  });
  if (r.status !== 200 || r.body.result.vector_status !== 'complete')
    throw new Error(`seeding ${uri} failed: ${r.status} ${r.text}`);
}

/** Writes many files in one batch (indexed concurrently) and waits until all are indexed. */
export async function seedMany(app: TestApp, as: As, files: Record<string, string>): Promise<void> {
  // One batch per scope root (viking://resources, viking://user/<u>, viking://agent): batches need a common root.
  const batches = new Map<string, { uri: string; content: string; mode: 'create' }[]>();
  for (const [uri, content] of Object.entries(files)) {
    const segments = uri.slice('viking://'.length).split('/');
    const root = `viking://${segments[0] === 'user' ? segments.slice(0, 2).join('/') : segments[0]}`;
    batches.set(root, [...(batches.get(root) ?? []), { uri, content, mode: 'create' }]);
  }
  for (const [root, operations] of batches) {
    const r = await app.request('POST', '/api/v1/content/batch-write', {
      ...as,
      body: { root_uri: root, operations, wait: true },
    });
    if (r.status !== 200 || r.body.result.vector_status !== 'complete')
      throw new Error(`batch seeding under ${root} failed: ${r.status} ${r.text}`);
  }
}

export function post(app: TestApp, path: string, body: unknown, as: As = {}): Promise<TestResponse> {
  return app.request('POST', path, { ...as, body });
}

/** `/search` in context mode. */
export function context(app: TestApp, body: Record<string, unknown>, as: As = {}): Promise<TestResponse> {
  return post(app, SEARCH, { mode: 'context', ...body }, as);
}

export function entriesOf(r: TestResponse): Entry[] {
  return r.body.result.entries as Entry[];
}

export function urisOf(r: TestResponse): string[] {
  return entriesOf(r).map((e) => e.uri);
}

export { STATS_KEYS } from '@app/kernel/testing/stats-keys';

// ---------------------------------------------------------------------------------------------
// The jobs behind one request. Completed jobs stay in Redis for two minutes (libs/queue job-options),
// so after a response the test can read exactly which `find` calls the gateway fanned out.

export interface FindCall {
  data: FindJob;
  /** The retriever's answer, or null when the job failed. */
  result: {
    memories: { uri: string; score: number }[];
    resources: { uri: string; score: number }[];
    skills: { uri: string; score: number }[];
  } | null;
  failedReason: string | null;
}

export class JobSpy {
  private readonly queues = new Map<QueueName, Queue>();

  constructor(private readonly app: TestApp) {}

  queue(name: QueueName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, {
        connection: { url: this.app.config.redis.url, maxRetriesPerRequest: null } as never,
        prefix: this.app.config.queues.prefix,
      });
      this.queues.set(name, q);
    }
    return q;
  }

  /**
   * Every finished `find` call whose query is `query` (each test uses its own distinctive query): a
   * single-call job, or one call of a context request's batch job with its own outcome.
   */
  async finds(query: string): Promise<FindCall[]> {
    const jobs = (await this.queue(QueueName.Find).getJobs(['completed', 'failed'])) as Job<FindJob | FindBatchJob>[];
    return jobs.flatMap((j): FindCall[] => {
      const done = j.finishedOn && !j.failedReason;
      if (!isFindBatch(j.data))
        return j.data.query === query
          ? [{ data: j.data, result: done ? j.returnvalue : null, failedReason: j.failedReason || null }]
          : [];
      const outcomes = done ? (j.returnvalue as FindBatchResult).outcomes : [];
      return j.data.calls.flatMap((call, i) => {
        if (call.query !== query) return [];
        const o = outcomes[i] as { result?: FindCall['result']; error?: string } | undefined;
        return [{ data: call, result: o?.result ?? null, failedReason: o?.error ?? (j.failedReason || null) }];
      });
    });
  }

  /** Completed `assemble` jobs created at or after `since` (ms) whose candidates include `uri`. */
  async assembles(uri: string, since: number): Promise<{ data: AssembleJob; result: AssembleResult }[]> {
    const jobs = (await this.queue(QueueName.Assemble).getJobs(['completed'])) as Job<AssembleJob, AssembleResult>[];
    return jobs
      .filter((j) => j.timestamp >= since && j.data.candidates.some((c) => c.baseUri === uri))
      .map((j) => ({ data: j.data, result: j.returnvalue }));
  }

  /**
   * Holds `queue` (paused) while `send()` runs, until `expected` jobs matching `match` wait in it;
   * `act(jobs)` then runs (tamper with a job, delete a file…) before the real worker gets them.
   */
  async holding<T>(
    name: QueueName,
    expected: number,
    match: (data: any) => boolean,
    send: () => Promise<T>,
    act: (jobs: Job[]) => Promise<void>,
  ): Promise<T> {
    const q = this.queue(name);
    await q.pause();
    try {
      const pending = send();
      let held: Job[] = [];
      for (let i = 0; i < 1000 && held.length < expected; i++) {
        await new Promise((r) => setTimeout(r, 10));
        held = (await q.getJobs(['waiting'])).filter((j) => match(j.data));
      }
      if (held.length !== expected) throw new Error(`expected ${expected} held ${name} jobs, saw ${held.length}`);
      await act(held);
      await q.resume();
      return await pending;
    } finally {
      await q.resume();
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

// ---------------------------------------------------------------------------------------------
// The dedup ledger record in Redis (architecture.md "Deliberate differences").

export class LedgerRedis {
  readonly redis: Redis;

  constructor(private readonly app: TestApp) {
    this.redis = new Redis(process.env.REDIS_URL ?? app.config.redis.url, { maxRetriesPerRequest: 1 });
  }

  key(account: string, user: string, session: string): string {
    return ledgerKey(this.app.config.queues.prefix, account, user, session);
  }

  async put(account: string, user: string, session: string, value: unknown): Promise<void> {
    await this.redis.set(
      this.key(account, user, session),
      typeof value === 'string' ? value : JSON.stringify(value),
      'EX',
      600,
    );
  }

  async get(account: string, user: string, session: string): Promise<any> {
    const raw = await this.redis.get(this.key(account, user, session));
    return raw === null ? null : JSON.parse(raw);
  }

  close(): Promise<'OK'> {
    return this.redis.quit();
  }
}

// ---------------------------------------------------------------------------------------------
// Contract-side oracles, written from the spec text (not imported from the kernel under test).

const CJK_RANGES: [number, number][] = [
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xf900, 0xfaff],
  [0x20000, 0x2ebef],
  [0x3040, 0x30ff],
  [0x31f0, 0x31ff],
  [0xac00, 0xd7af],
  [0x1100, 0x11ff],
  [0x3130, 0x318f],
  [0xff00, 0xffef],
  [0x3000, 0x303f],
];

/** docs/contract.md#token-estimate: per code point 1.5 (CJK ranges), 2.0 (astral), else 0.25; ceil of the sum. */
export function estimateTokens(text: string): number {
  let sum = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    sum += CJK_RANGES.some(([a, b]) => cp >= a && cp <= b) ? 1.5 : cp > 0xffff ? 2.0 : 0.25;
  }
  return Math.ceil(sum);
}

/** docs/contract.md#rendered-block attribute escaping. */
export function escapeAttr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** docs/contract.md#rendered-block one element (the body as served, envelope neutralised). */
export function renderElement(e: Entry): string {
  const head = `<memory uri="${escapeAttr(e.uri)}" type="${escapeAttr(e.category)}" score="${e.score.toFixed(2)}" detail="${e.detail}"`;
  if (!e.text) return `${head} />`;
  return `${head}>\n${e.text.replace(/<(\/?)memory(?=[\s/>])/gi, '<\\$1memory')}\n</memory>`;
}

/** docs/contract.md#stats `used_tokens`: Σ element tokens + 1 per entry after the first. */
export function usedTokensOf(entries: Entry[]): number {
  return entries.reduce((s, e) => s + estimateTokens(renderElement(e)), 0) + Math.max(0, entries.length - 1);
}
