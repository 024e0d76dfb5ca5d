/**
 * `BENCH_FAIR_MODE=extract npm run bench:fair`: how long another tenant's small commit takes to be
 * extracted while one tenant floods the extract queue with big commits, first in, first out
 * (`MUNINN_FAIR_WINDOW_MS=0`), fair with every commit weighing one (`MUNINN_FAIR_EXTRACT_TOKENS=0`, the
 * order before 2026-12-04) and fair with commits weighed by their archived tokens (the default).
 *
 * Extraction is made the bottleneck the way a hosted deployment meets it: the model is a stand-in (an
 * OpenAI-compatible chat server in this process) answering after BENCH_FAIR_LLM_MS (default 300) plus
 * 1 ms per BENCH_FAIR_LLM_CHARS_PER_MS prompt characters (default 40, about 10 tokens), and the process
 * runs 2 workers per queue (`MUNINN_WORKER_CONCURRENCY=2`, a small deployment). Tenant A (2 keys) posts a
 * session of BENCH_FAIR_A_TOKENS tokens (default 40,000) and commits it, each key every
 * BENCH_FAIR_A_EVERY_MS (default 4,000: fewer commits than B, each far bigger), for
 * BENCH_FAIR_SECONDS (default 20). From the second second tenant B commits a two-message session every
 * 500 ms (more commits than A, each tiny) and polls its open tasks; a commit still open 15 s after the
 * flood ends is counted as unfinished at the time it had waited. Commit backlog bounds are off. docs/limits-and-security.md "Fair background queues".
 */
import { QueueName } from '@app/contracts';
import { WORKING_MEMORY_SECTIONS } from '@app/kernel';
import { FakeLlmRequest, startFakeLlmServer } from '@app/testing';
import { api, deploy, peakQueue, pct, sleep, Store } from './fair-support';

const SECONDS = Number(process.env.BENCH_FAIR_SECONDS ?? 20);
const LLM_MS = Number(process.env.BENCH_FAIR_LLM_MS ?? 300);
const CHARS_PER_MS = Number(process.env.BENCH_FAIR_LLM_CHARS_PER_MS ?? 40);
const A_TOKENS = Number(process.env.BENCH_FAIR_A_TOKENS ?? 40_000);
const A_USERS = 2;
const A_EVERY_MS = Number(process.env.BENCH_FAIR_A_EVERY_MS ?? 4000);
const B_EVERY_MS = 500;
const GRACE_MS = 15_000;

const OVERVIEW = `# Working Memory\n\n${WORKING_MEMORY_SECTIONS.map((s) => `## ${s}\n- noted`).join('\n\n')}`;
const EXTRACTION = JSON.stringify({ profile: null, preferences: [], entities: [], events: [], overview: OVERVIEW });

/** The model stand-in: an extraction answer (or an empty one) after a time linear in the prompt's length. */
function slowModel() {
  return startFakeLlmServer({
    fallback: (req: FakeLlmRequest) => {
      const chars = req.messages.reduce((n, m) => n + String(m.content ?? '').length, 0);
      const extraction = req.messages[0]?.content.startsWith('You extract long-term memories') ?? false;
      return { text: extraction ? EXTRACTION : '{"queries": []}', delayMs: LLM_MS + chars / CHARS_PER_MS };
    },
  });
}

/** Tenant A: a big session posted and committed by each key every A_EVERY_MS until `until`; the commits accepted. */
async function floodA(url: string, keys: string[], until: number): Promise<number> {
  const turn = 'We went over the quarterly copper lantern figures line by line again. ';
  // Four messages of A_TOKENS characters each: about A_TOKENS tokens in all (4 characters a token).
  const content = turn.repeat(Math.ceil(A_TOKENS / turn.length));
  let accepted = 0;
  await Promise.all(
    keys.map(async (key, k) => {
      for (let i = 0; Date.now() < until; i++) {
        const t0 = Date.now();
        const sid = `a${k}-${i}`;
        const messages = Array.from({ length: 4 }, (_, m) => ({ role: m % 2 ? 'assistant' : 'user', content }));
        const m = await api(url, `/api/v1/sessions/${sid}/messages/batch`, key, { messages });
        if (m.status === 200 && (await api(url, `/api/v1/sessions/${sid}/commit`, key, {})).status === 200) accepted++;
        await sleep(Math.max(0, A_EVERY_MS - (Date.now() - t0)));
      }
    }),
  );
  return accepted;
}

/**
 * Tenant B: a small commit every B_EVERY_MS (an agent committing every few turns, not waiting for the
 * extraction); one poller checks B's open tasks in turn. Per commit: the time until its task completed,
 * and whether it did before the grace ran out.
 */
async function probeB(url: string, key: string, from: number, until: number) {
  await sleep(Math.max(0, from - Date.now()));
  const open = new Map<string, number>();
  const waits: { ms: number; done: boolean }[] = [];
  let committing = true;
  const commits = (async () => {
    for (let i = 0; Date.now() < until; i++) {
      const t0 = Date.now();
      const sid = `b-${i}`;
      await api(url, `/api/v1/sessions/${sid}/messages/batch`, key, {
        messages: [
          { role: 'user', content: `Note ${i}: I moved my cello lesson to Thursday.` },
          { role: 'assistant', content: 'Thursday it is.' },
        ],
      });
      const c = await api(url, `/api/v1/sessions/${sid}/commit`, key, {});
      if (c.status !== 200) throw new Error(`B's commit: ${c.status} ${JSON.stringify(c.body).slice(0, 200)}`);
      open.set(c.body.result.task_id, t0);
      await sleep(Math.max(0, B_EVERY_MS - (Date.now() - t0)));
    }
    committing = false;
  })();
  while (committing || (open.size > 0 && Date.now() < until + GRACE_MS)) {
    for (const [task, t0] of [...open]) {
      const t = await api(url, `/api/v1/tasks/${task}`, key);
      if (t.body.result?.status === 'completed') {
        waits.push({ ms: Date.now() - t0, done: true });
        open.delete(task);
      }
    }
    await sleep(200);
  }
  await commits;
  for (const t0 of open.values()) waits.push({ ms: Date.now() - t0, done: false });
  return waits;
}

export async function extractScenario(stores: Store[], pgBase?: string): Promise<void> {
  const model = await slowModel();
  const rows: string[] = [];
  try {
    for (const store of stores) {
      if (store === 'postgres' && !pgBase) {
        console.log('postgres: skipped (no MUNINN_BENCH_DATABASE_URL or MUNINN_TEST_DATABASE_URL)');
        continue;
      }
      const p50: number[] = [];
      for (const [label, window, tokens] of [
        ['FIFO (window 0)', 0, 4000],
        ['fair, every commit weighs one', 10_000, 0],
        ['fair, commits weighed by tokens (default)', 10_000, 4000],
      ] as const) {
        const d = await deploy(
          store,
          {
            MUNINN_FAIR_WINDOW_MS: String(window),
            MUNINN_FAIR_EXTRACT_TOKENS: String(tokens),
            MUNINN_ACCOUNT_MAX_PENDING_COMMITS: '0',
            MUNINN_WORKER_CONCURRENCY: '2',
            LLM_BASE_URL: model.url,
            LLM_MODEL: 'bench-slow',
            MUNINN_EXTRACT_TIMEOUT_S: '120',
          },
          A_USERS,
          pgBase,
        );
        try {
          const start = Date.now();
          const until = start + SECONDS * 1000;
          const [accepted, waits, peak] = await Promise.all([
            floodA(d.url, d.keysA, until),
            probeB(d.url, d.keyB, start + 1000, until),
            peakQueue(QueueName.Extract, d.prefix, until),
          ]);
          const ms = waits.map((w) => w.ms);
          const open = waits.filter((w) => !w.done).length;
          p50.push(pct(ms, 50));
          const f = (x: number) => (x / 1000).toFixed(2);
          rows.push(
            `| ${store} | ${label} | ${accepted} | ${peak} | ${waits.length - open} | ${open} | ${f(pct(ms, 50))} | ${f(Math.max(...ms))} |`,
          );
          console.log(rows[rows.length - 1]);
        } finally {
          await d.stop();
        }
      }
      rows.push(
        `| ${store} | ratio of B's p50: FIFO / weighed, weighs one / weighed | | | | | ${(p50[0] / p50[2]).toFixed(1)}× / ${(p50[1] / p50[2]).toFixed(1)}× | |`,
      );
    }
  } finally {
    await model.close();
  }
  console.log(
    `\nA: a ${A_TOKENS}-token session committed by each of ${A_USERS} keys every ${A_EVERY_MS} ms for ${SECONDS} s; B: a two-message commit every ${B_EVERY_MS} ms; the model answers after ${LLM_MS} ms + 1 ms per ${CHARS_PER_MS} prompt characters; 2 workers\n`,
  );
  console.log(
    "| store | order | A's commits | extract queue peak | B's commits extracted | B's unfinished | B commit → extracted p50 s | max s |",
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}
