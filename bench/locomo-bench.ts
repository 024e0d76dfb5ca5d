/**
 * `npm run bench:locomo -- [flags]`: LoCoMo evidence recall of mode="context" (evaluation only; the data
 * is CC BY-NC 4.0, read from ../shared/datasets/locomo and never copied into the repository).
 * Boots Muninn in this process (PostgreSQL at MUNINN_BENCH_DATABASE_URL in a fresh database, else
 * PGlite), gives every conversation a fresh tenant (dev mode: X-OpenViking-Account/-User), writes its
 * memories through POST /api/v1/content/batch-write, then asks every question at each budget and scores
 * what `rendered` carries. Flags (defaults in brackets):
 *   --data FILE [../shared/datasets/locomo/locomo-dev.json]  --zh FILE|off [bench/data/zh-locomo.json]
 *   --conversations N [all]  --budgets 800,1600,3200  --chunk N (turns per event memory, 0 = session; used when --chunk-tokens is 0) [0]
 *   --chunk-tokens N (even parts of at most N ChatLog tokens, 0 = use --chunk) [200]
 *   --overlap N [0]  --keep-answers on|off (--chunk only: no cut right after a question) [on]  --summary lead|extractive|gold|none [lead]  --lead-tokens N (lead: opening turns up to ~N tokens) [60]
 *   --summary-rate R (extractive: sentences per 10 turns, 0 = date line only) [0]  --summary-clip CHARS (extractive) [220]
 *   --entities on|off [on]  --preferences on|off [on]  --limit N (request `limit`) [unset]  --purpose chat|coding [unset]
 *   --transport bullmq|inprocess [bullmq]  --concurrency N [1]  --variant NAME  --out FILE [bench/results/…]
 *   --weights LEX,VEC  experiment only: overrides the retriever's hybrid weights in this process
 *   --oracle  ceiling analysis: candidates limited to the memories holding the evidence (uses the evidence; never a result)
 *   --layouts L,L [tuned,session,facts,mixed,tuned+facts] (bench/locomo-layouts.ts; the Chinese set: tuned only);
 *     each layout also gets a plain BM25 + greedy-fill baseline over the same memories (bench/locomo-bm25.ts)
 *   --ingest harness|session [harness]: session = post each session as messages, commit, let the product's
 *     extractor write the memories (locomo-session.ts); harness = the memory files built here
 *   --typos R [0]: each question word of 5+ letters misspelt with probability R (bench/locomo-typos.ts), for both rankers
 *   --llm on|off [on when LLM_BASE_URL is set]  --llm-timeout-ms N [120000]: model-written entity and preference
 *     memories and session summaries (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL); sessions it fails on fall back
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EXCERPT_FLOOR_SHARE } from '@app/kernel';
import { LlmClient } from '@app/llm';
import { NodeSearchRepository } from '@app/store';
import { createTestDatabase, startTestApp, TestApp } from '@app/testing';
import { Conversation, loadGoldNotes, loadLocomo, LoadReport, MemoryFile } from './locomo-data';
import { buildMemories, DEFAULT_INGEST, IngestOptions, SummaryMode } from './locomo-ingest';
import { extractWithLlm } from './locomo-llm';
import { Bm25Baseline } from './locomo-bm25';
import { DatasetNotes, factMemories, Layout, LAYOUTS, loadNotes, sessionMemories } from './locomo-layouts';
import { aggregate, formatTable, Outcome, scoreServed, servedMix, summarize } from './locomo-score';
import { ingestBySession } from './locomo-session';
import { misspell } from './locomo-typos';

const repo = process.cwd(); // npm scripts run from the repository root
const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (!a.startsWith('--')) continue;
  const next = process.argv[i + 1];
  if (next !== undefined && !next.startsWith('--')) args.set(a.slice(2), process.argv[++i]);
  else args.set(a.slice(2), 'on');
}
const flag = (k: string, d: string) => args.get(k) ?? d;
const onOff = (k: string, d: boolean) => (args.has(k) ? !['off', 'false', '0', 'no'].includes(args.get(k)!) : d);

const ingest: IngestOptions = {
  chunk: Number(flag('chunk', String(DEFAULT_INGEST.chunk))),
  chunkTokens: Number(flag('chunk-tokens', String(DEFAULT_INGEST.chunkTokens))),
  overlap: Number(flag('overlap', String(DEFAULT_INGEST.overlap))),
  keepAnswers: onOff('keep-answers', DEFAULT_INGEST.keepAnswers),
  summary: flag('summary', DEFAULT_INGEST.summary) as SummaryMode,
  leadTokens: Number(flag('lead-tokens', String(DEFAULT_INGEST.leadTokens))),
  summaryRate: Number(flag('summary-rate', String(DEFAULT_INGEST.summaryRate))),
  summaryClip: Number(flag('summary-clip', String(DEFAULT_INGEST.summaryClip))),
  entities: onOff('entities', DEFAULT_INGEST.entities),
  preferences: onOff('preferences', DEFAULT_INGEST.preferences),
};
const budgets = flag('budgets', '800,1600,3200').split(',').map(Number);
const layouts = flag('layouts', LAYOUTS.join(',')).split(',').filter(Boolean) as Layout[];
for (const l of layouts) if (!LAYOUTS.includes(l)) throw new Error(`unknown layout ${l}; known: ${LAYOUTS.join(', ')}`);
const limit = args.has('limit') ? Number(args.get('limit')) : null;
const purpose = args.get('purpose') ?? null;
const weights = args.get('weights')?.split(',').map(Number) ?? null;
const concurrency = Math.max(1, Number(flag('concurrency', '1')));
const ingestMode = flag('ingest', 'harness');
const typos = Number(flag('typos', '0'));
const USER = 'u';
const PASS_THROUGH = ['EMBEDDING_BASE_URL', 'EMBEDDING_API_KEY', 'EMBEDDING_MODEL', 'EMBEDDING_DIM'];
// With LLM_BASE_URL (and LLM_MODEL) set, a model writes the entity/preference memories and session summaries.
const llm =
  process.env.LLM_BASE_URL && onOff('llm', true)
    ? new LlmClient({
        baseUrl: process.env.LLM_BASE_URL,
        apiKey: process.env.LLM_API_KEY ?? null,
        model: process.env.LLM_MODEL ?? null,
        plannerModel: null,
      })
    : null;
const llmTimeoutMs = Number(flag('llm-timeout-ms', '120000'));
// --dump keeps every served block for inspection (local only: it holds dataset text), with the memories holding
// each evidence turn; with --diagnose also each question's /find order.
const dump = onOff('dump', false);
const dumps: unknown[] = [];
// --oracle: the assembly ceiling (see where it is used); its numbers are labelled and never the result.
const oracle = onOff('oracle', false);
// --diagnose also asks /find (limit 100) per question and reports the rank of the first evidence memory.
const diagnose = onOff('diagnose', false);
const findRanks: { category: number; rank: number }[] = [];
const bm25Ranks: { category: number; rank: number }[] = [];

interface DataSet {
  name: string;
  path: string;
  conversations: Conversation[];
  report: LoadReport;
  gold: ReturnType<typeof loadGoldNotes> | null;
  notes: Map<string, DatasetNotes>;
  layouts: Layout[];
}

function loadSet(name: string, path: string, max: number, setLayouts: Layout[]): DataSet {
  const loaded = loadLocomo(path, max);
  const report = loaded.report;
  const conversations = loaded.conversations.map((c) => ({
    ...c,
    questions: c.questions.map((q) => ({ ...q, question: misspell(q.question, typos, q.id) })),
  }));
  return {
    name,
    path,
    conversations,
    report,
    gold: ingest.summary === 'gold' ? loadGoldNotes(path) : null,
    notes: loadNotes(path),
    layouts: setLayouts,
  };
}

function layoutFiles(
  layout: Layout,
  set: DataSet,
  conv: Conversation,
  notes: Parameters<typeof buildMemories>[3],
): MemoryFile[] {
  const mine = set.notes.get(conv.id);
  const tuned = () => buildMemories(conv, ingest, set.gold?.get(conv.id), notes);
  if (layout === 'tuned') return tuned();
  if (layout === 'session') return sessionMemories(conv, mine);
  if (layout === 'facts') return factMemories(conv, mine);
  if (layout === 'mixed') return [...sessionMemories(conv, mine), ...factMemories(conv, mine)];
  return [...tuned(), ...factMemories(conv, mine)];
}

async function writeMemories(app: TestApp, headers: Record<string, string>, files: MemoryFile[]): Promise<void> {
  const root = `viking://user/${USER}/memories`;
  for (let i = 0; i < files.length; i += 256) {
    const operations = files
      .slice(i, i + 256)
      .map((f) => ({ uri: `${root}/${f.path}`, content: f.content, mode: 'create' }));
    const r = await app.request('POST', '/api/v1/content/batch-write', {
      headers,
      body: { root_uri: root, operations, wait: true, timeout: 600 },
    });
    const status = r.body?.result?.semantic_status;
    if (r.status !== 200 || (status !== 'complete' && status !== 'deferred'))
      throw new Error(`batch-write failed: ${r.status} ${r.text.slice(0, 400)}`);
    // `deferred`: the files are indexed; their directory summaries are coalesced with a later write. Let them settle.
    if (status === 'deferred') await new Promise((done) => setTimeout(done, 3000));
  }
}

async function runConversation(
  app: TestApp,
  set: DataSet,
  conv: Conversation,
  runId: string,
  layout: Layout,
  outcomes: Outcome[],
  baseline: Outcome[],
) {
  const tenant = `locomo-${runId}-${conv.id}-${layout.replace('+', '-')}`
    .replace(/[^A-Za-z0-9_.@-]/g, '-')
    .slice(0, 60);
  const headers = { 'X-OpenViking-Account': tenant, 'X-OpenViking-User': USER };
  const notes =
    llm && ingestMode !== 'session'
      ? await extractWithLlm(llm, conv, { timeoutMs: llmTimeoutMs, concurrency: 4 })
      : undefined;
  if (notes) {
    console.log(
      `  ${conv.id}: LLM notes for ${notes.bySession.size}/${conv.sessions.length} sessions, ${notes.promptTokens}+${notes.completionTokens} tokens` +
        (notes.failed.length
          ? `; LLM-free fallback for ${notes.failed.map((f) => `s${f.session} (${f.reason.slice(0, 80)})`).join(', ')}`
          : ''),
    );
  }
  // Session ingestion: the product extracts; `files` stays the harness's view (BM25 baseline, --oracle, --dump).
  const files = layoutFiles(layout, set, conv, notes);
  const bm25 = new Bm25Baseline(files, `viking://user/${USER}/memories`);
  const t0 = performance.now();
  const bySession = ingestMode === 'session' ? await ingestBySession(app, headers, conv) : null;
  if (!bySession) await writeMemories(app, headers, files);
  const ingestMs = performance.now() - t0;
  if (bySession)
    console.log(`  ${conv.id}: ${bySession.commits} commits → ${bySession.memories} memories written by the extractor`);
  const turnText = new Map(conv.sessions.flatMap((s) => s.turns.map((t) => [t.diaId, t.text] as const)));
  const jobs = conv.questions
    .filter((q) => q.evidence.length > 0)
    .flatMap((q) => budgets.map((budget) => ({ q, budget })));
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const { q, budget } = jobs[next++];
        const body: Record<string, unknown> = { query: q.question, mode: 'context', max_tokens: budget };
        if (limit !== null) body['limit'] = limit;
        if (purpose) body['purpose'] = purpose;
        if (oracle) {
          // Ceiling analysis only (--oracle): candidates restricted to the memories holding an evidence turn,
          // so recall measures budgeting and tiers alone, as if retrieval were perfect. Never a served result.
          const holders = files.filter((f) => q.evidence.some((id) => f.content.includes(`[${id}]`)));
          body['filter'] = {
            op: 'or',
            conds: holders.map((f) => ({
              op: 'prefix',
              field: 'uri',
              prefix: `viking://user/${USER}/memories/${f.path}`,
            })),
          };
        }
        const block = bm25.serve(q.question, budget);
        if (dump) dumps.push({ id: q.id, budget, bm25: block.served });
        baseline.push({
          questionId: q.id,
          conversation: conv.id,
          category: q.category,
          budget,
          evidence: q.evidence.length,
          latencyMs: 0,
          ...scoreServed(block.rendered, block.entries, q, turnText),
          served: {},
          tokens: block.tokens,
          returned: block.entries.length,
        });
        const s = performance.now();
        const r = await app.request('POST', '/api/v1/search/search', { headers, body });
        const latencyMs = performance.now() - s;
        const result = r.body?.result;
        const base = {
          questionId: q.id,
          conversation: conv.id,
          category: q.category,
          budget,
          evidence: q.evidence.length,
          latencyMs,
        };
        if (r.status !== 200 || typeof result?.rendered !== 'string') {
          outcomes.push({
            ...base,
            recall: 0,
            strictRecall: 0,
            answerCoverage: q.answer === null ? null : 0,
            tokens: 0,
            returned: 0,
            firstRank: 0,
            served: {},
            error: `${r.status} ${r.text.slice(0, 200)}`,
          });
          continue;
        }
        const score = scoreServed(result.rendered, result.entries ?? [], q, turnText);
        const errors = result.stats?.retrieval_errors as string[] | undefined;
        const mix: Record<string, number> = {};
        for (const e of (result.entries ?? []) as { category: string; detail: string }[])
          mix[`${e.category}/${e.detail}`] = (mix[`${e.category}/${e.detail}`] ?? 0) + 1;
        if (dump) {
          const holders = Object.fromEntries(
            q.evidence.map((id) => [id, files.filter((f) => f.content.includes(`[${id}]`)).map((f) => f.path)]),
          );
          const entries = ((result.entries ?? []) as { uri: string; detail: string; score: number }[]).map(
            (e) => `${e.uri.replace(/^.*\/memories\//, '')} ${e.detail} ${e.score.toFixed(3)}`,
          );
          dumps.push({
            id: q.id,
            budget,
            question: q.question,
            evidence: q.evidence,
            recall: score.recall,
            holders,
            entries,
            rendered: result.rendered,
            stats: result.stats,
          });
        }
        outcomes.push({
          ...base,
          ...score,
          served: mix,
          tokens: result.stats?.used_tokens ?? 0,
          returned: result.stats?.returned ?? 0,
          ...(errors?.length ? { error: errors.join('; ') } : {}),
        });
      }
    }),
  );
  if (diagnose) {
    // Diagnosis only, after serving: where /find ranks the first memory that holds an evidence turn.
    for (const q of conv.questions.filter((x) => x.evidence.length > 0)) {
      const r = await app.request('POST', '/api/v1/search/find', { headers, body: { query: q.question, limit: 100 } });
      const hits = (r.body?.result?.memories ?? []) as { uri: string }[];
      const holders = new Set(
        files
          .filter((f) => q.evidence.some((id) => f.content.includes(`[${id}]`)))
          .map((f) => `viking://user/${USER}/memories/${f.path}`),
      );
      const rank = hits.findIndex((h) => holders.has(h.uri)) + 1;
      if (dump) dumps.push({ id: q.id, find: hits.map((h) => h.uri.replace(/^.*\/memories\//, '')) });
      findRanks.push({ category: q.category, rank });
      const ranked = bm25.rank(q.question).slice(0, 100);
      const holds = (i: number) => q.evidence.some((id) => files[i].content.includes(`[${id}]`));
      bm25Ranks.push({ category: q.category, rank: ranked.findIndex((x) => holds(x.index)) + 1 });
    }
  }
  const kinds: Record<string, number> = {};
  for (const f of files) kinds[f.path.split('/')[0]] = (kinds[f.path.split('/')[0]] ?? 0) + 1;
  const chars = files.reduce((s, f) => s + f.content.length, 0);
  console.log(
    `  ${conv.id}: ${files.length} memories ${JSON.stringify(kinds)}, ~${Math.round(chars / 4)} tokens, ingest ${(ingestMs / 1000).toFixed(1)} s, ${jobs.length} requests`,
  );
  return {
    layout,
    conversation: conv.id,
    files: files.length,
    kinds,
    approxTokens: Math.round(chars / 4),
    ingestMs: Math.round(ingestMs),
  };
}

async function main() {
  const max = args.has('conversations') ? Number(args.get('conversations')) : Infinity;
  const sets = [
    loadSet('locomo', resolve(repo, flag('data', '../shared/datasets/locomo/locomo-dev.json')), max, layouts),
  ];
  const zh = flag('zh', 'bench/data/zh-locomo.json');
  if (zh !== 'off') sets.push(loadSet('zh', resolve(repo, zh), Infinity, ['tuned']));
  const base = process.env.MUNINN_BENCH_DATABASE_URL;
  const db = base ? await createTestDatabase(base) : null;
  const transport = flag('transport', 'bullmq');
  // A real embedding provider (EMBEDDING_BASE_URL, …) is passed through when set; default: the offline embedder.
  const passThrough = Object.fromEntries(PASS_THROUGH.filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
  const app = await startTestApp({
    env: {
      MUNINN_TRANSPORT: transport,
      MUNINN_REQUEST_DEADLINE_MS: '60000',
      MUNINN_WRITE_WAIT_MS: '600000',
      ...passThrough,
      ...(db ? { DATABASE_URL: db.url } : {}),
    },
  });
  const variant = flag(
    'variant',
    `${ingestMode === 'session' ? 'session-' : ''}${ingest.chunkTokens ? `tok${ingest.chunkTokens}` : `chunk${ingest.chunk}`}-${ingest.summary}${limit !== null ? `-limit${limit}` : ''}${purpose ? `-${purpose}` : ''}${weights ? `-w${weights.join('_')}` : ''}${llm ? '-llm' : ''}${oracle ? '-ORACLE' : ''}`,
  );
  const runId = Date.now().toString(36);
  const started = performance.now();
  try {
    if (args.has('excerpt-share')) EXCERPT_FLOOR_SHARE.value = Number(args.get('excerpt-share')); // experiment hook
    if (weights) {
      // Experiment hook, not a setting: the retriever's ranking weights belong to libs/store.
      Reflect.set(app.nest.get(NodeSearchRepository, { strict: false }), 'weights', {
        lexical: weights[0],
        vector: weights[1],
      });
    }
    console.log(
      `variant ${variant}: ${JSON.stringify(ingest)}${typos > 0 ? ` typos ${typos}` : ''} budgets ${budgets.join('/')} store ${db ? 'PostgreSQL' : 'PGlite'} transport ${transport}`,
    );
    const results: Record<string, unknown> = {};
    const tables: string[] = [];
    const sideBySide = [
      '\nlayout × budget: Muninn vs plain BM25 + greedy fill (same memories, same run); tag recall / whole-turn recall',
      'set     layout        budget   muninn tag  bm25 tag   Δ tag    muninn whole  bm25 whole',
    ];
    for (const set of sets) {
      const r = set.report;
      console.log(
        `${set.name}: ${r.conversations} conversations, ${r.sessions} sessions, ${r.turns} turns, ${r.questions} questions ${JSON.stringify(r.questionsByCategory)}; ` +
          `${r.withoutAnswer} without answer, ${r.unmatchedEvidence.length}/${r.evidenceIds} evidence ids match no turn, ${r.repairedEvidence.length} repaired, ` +
          `${r.questionsWithoutEvidence.length} questions left without evidence (not scored), ${r.datesWithoutSession.length} dates without a session`,
      );
      for (const layout of set.conversations.length ? set.layouts : []) {
        const outcomes: Outcome[] = [];
        const baseline: Outcome[] = [];
        const ingestStats = [];
        for (const conv of set.conversations)
          ingestStats.push(await runConversation(app, set, conv, runId, layout, outcomes, baseline));
        const summary = summarize(outcomes);
        const mix = servedMix(outcomes);
        tables.push(
          `${formatTable(`\n${set.name} — ${layout} — ${variant}`, summary)}\nserved entries per request: ${JSON.stringify(mix)}`,
        );
        for (const budget of budgets) {
          const m = aggregate(outcomes.filter((o) => o.budget === budget));
          const b = aggregate(baseline.filter((o) => o.budget === budget));
          sideBySide.push(
            `${set.name.padEnd(7)} ${layout.padEnd(13)} ${String(budget).padStart(6)}   ${m.recall.toFixed(3)}       ${b.recall.toFixed(3)}      ` +
              `${(m.recall - b.recall >= 0 ? '+' : '') + (m.recall - b.recall).toFixed(3)}   ${m.strictRecall.toFixed(3)}         ${b.strictRecall.toFixed(3)}`,
          );
        }
        results[`${set.name}/${layout}`] = {
          data: set.path,
          load: r,
          ingest: ingestStats,
          summary,
          mix,
          baseline: summarize(baseline),
          outcomes,
          baselineOutcomes: baseline,
        };
      }
    }
    tables.push(sideBySide.join('\n'));
    for (const t of tables) console.log(t);
    if (diagnose) {
      for (const [name, list] of [
        ['/find', findRanks],
        ['BM25', bm25Ranks],
      ] as const) {
        const share = (k: number) =>
          (list.filter((x) => x.rank > 0 && x.rank <= k).length / Math.max(1, list.length)).toFixed(3);
        console.log(
          `${name} rank of the first evidence memory over ${list.length} questions: @1 ${share(1)} @3 ${share(3)} @5 ${share(5)} @10 ${share(10)} @20 ${share(20)} @100 ${share(100)}`,
        );
      }
      results['findRanks'] = findRanks;
    }
    const out = resolve(
      repo,
      flag('out', `bench/results/locomo-${variant}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    );
    mkdirSync(dirname(out), { recursive: true });
    const config = {
      variant,
      ingest,
      budgets,
      limit,
      purpose,
      weights,
      transport,
      store: db ? 'postgres' : 'pglite',
      embedder: app.config.embedding.model ?? app.config.embedding.provider,
      llm: llm ? (process.env.LLM_MODEL ?? null) : null,
    };
    writeFileSync(out, JSON.stringify({ config, seconds: (performance.now() - started) / 1000, results }, null, 1));
    if (dump) writeFileSync(out.replace(/\.json$/, '.dump.json'), JSON.stringify(dumps, null, 1));
    console.log(`\n${((performance.now() - started) / 1000).toFixed(0)} s; JSON: ${out}`);
  } finally {
    await app.close();
    await db?.drop();
  }
}

void main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
