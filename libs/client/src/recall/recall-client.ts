import { join } from 'node:path';
import type { ContextEntryDto, ContextResultDto, ContextStatsDto, FindHitDto } from '../generated/openapi';
import { createMuninnClient, MuninnClient } from '../muninn-client';
import { contextRequestTimeoutMs } from './deadline';
import { assembleFromFind, findFallbackLimit } from './find-assembly';
import { LegacyMarker } from './legacy-marker';
import { compressRecallContext, DIGEST_CACHE_FILE, RunCompressor } from './local-digest';
import type { RecallConfig } from './recall-config';
import { buildContextSearchBody, buildLegacyRecallBody, TurnInput } from './request-bodies';

/**
 * Wrapper and header of the injected block (docs/contract.md#fallback-chain), with Muninn's name as in the digest
 * header.
 */
export const CONTEXT_TAG = 'muninn-context';
export const CONTEXT_HEADER = 'Relevant memory from Muninn. Use the search/read MCP tools to expand URIs.';

export type RecallSource = 'context' | 'recall' | 'find' | 'none' | 'skipped';

export interface RecallResult {
  /** Which step of the chain answered. */
  source: RecallSource;
  entries: ContextEntryDto[];
  rendered: string;
  digest: string;
  stats: ContextStatsDto | null;
  /** The text to inject into the agent's turn; "" = inject nothing. */
  injection: string;
  /** One line per HTTP call made: `POST /api/v1/search/search → 400`. */
  trace: string[];
}

export interface RecallClientOptions {
  config: RecallConfig;
  /**
   * The host's compressor for a local digest (docs/contract.md#local-digest); none → the server may be asked for one.
   */
  runCompressor?: RunCompressor;
  fetch?: (input: Request) => Promise<Response>;
  log?: (message: string) => void;
  now?: () => number;
}

interface Answer {
  status: number;
  data: unknown;
  error: unknown;
}

const UNKNOWN_FIELD_WORDS = ['extra', 'mode', 'unexpected'];

/**
 * Whether a 400/422 says the server does not know `mode:"context"` (an older server, docs/contract.md#fallback-chain).
 */
export function looksLikeUnknownField(status: number, error: unknown): boolean {
  if (status !== 400 && status !== 422) return false;
  const e = error as { error?: unknown; result?: unknown; detail?: unknown } | null;
  const text = (JSON.stringify(e?.error ?? e?.result ?? e?.detail ?? e) ?? '').toLowerCase();
  return UNKNOWN_FIELD_WORDS.some((w) => text.includes(w));
}

/**
 * The agent-plugin recall client (docs/contract.md#fallback-chain): context face → legacy `/recall` → client-side
 * assembly
 * from `/find`, with the six-hour legacy marker, request deadlines and the local digest.
 */
export class RecallClient {
  private readonly api: MuninnClient;
  private readonly marker: LegacyMarker;
  private readonly log: (message: string) => void;

  constructor(private readonly opts: RecallClientOptions) {
    const c = opts.config;
    this.api = createMuninnClient({
      baseUrl: c.url,
      apiKey: c.apiKey,
      accountId: c.accountId,
      userId: c.userId,
      peerId: c.peerId,
      fetch: opts.fetch,
    });
    this.marker = new LegacyMarker(c.stateDir, opts.now);
    this.log = opts.log ?? (() => undefined);
  }

  async recall(turn: Omit<TurnInput, 'hasLocalCompressor'>): Promise<RecallResult> {
    const cfg = this.opts.config;
    const trace: string[] = [];
    if (turn.query.trim().length < cfg.minQueryLength) return empty('skipped', trace);
    const block =
      (await this.viaContext(turn, trace)) ??
      (await this.viaRecall(turn.query, trace)) ??
      (await this.viaFind(turn.query, trace));
    return { ...block, injection: await this.injection(turn.query, block), trace };
  }

  private async viaContext(turn: Omit<TurnInput, 'hasLocalCompressor'>, trace: string[]): Promise<Block | null> {
    if (await this.marker.isFresh()) {
      trace.push('legacy marker fresh: context face skipped');
      return null;
    }
    const cfg = this.opts.config;
    const body = buildContextSearchBody(cfg, { ...turn, hasLocalCompressor: Boolean(this.opts.runCompressor) });
    const timeoutMs = contextRequestTimeoutMs(cfg, body) ?? cfg.timeoutMs;
    const r = await this.call(trace, '/api/v1/search/search', timeoutMs, (signal) =>
      this.api.POST('/api/v1/search/search', { body, signal }),
    );
    const result = (r.data as { result?: ContextResultDto } | undefined)?.result;
    if (r.status === 200 && result && Array.isArray(result.entries)) return blockOf('context', result);
    if (looksLikeUnknownField(r.status, r.error)) {
      await this.marker.write().catch((err: unknown) => this.log(`legacy marker not written: ${String(err)}`));
      this.log(`context face rejected (${r.status}); using /recall for the next six hours`);
    } else this.log(`context request failed (${r.status || 'no answer'}): ${JSON.stringify(r.error)}`);
    return null;
  }

  private async viaRecall(query: string, trace: string[]): Promise<Block | null> {
    const cfg = this.opts.config;
    let body = buildLegacyRecallBody(cfg, query);
    for (let attempt = 0; attempt < 2; attempt++) {
      const sent = body;
      const r = await this.call(trace, '/api/v1/search/recall', cfg.timeoutMs, (signal) =>
        this.api.POST('/api/v1/search/recall', { body: sent, signal }),
      );
      const result = (r.data as { result?: ContextResultDto } | undefined)?.result;
      if (r.status === 200 && result) return blockOf('recall', result);
      if ((r.status === 400 || r.status === 422) && body.peer_scope !== undefined) {
        const { peer_scope: _dropped, ...rest } = body;
        body = rest;
        continue;
      }
      this.log(`/recall failed (${r.status || 'no answer'})`);
      return null;
    }
    return null;
  }

  private async viaFind(query: string, trace: string[]): Promise<Block> {
    const cfg = this.opts.config;
    const limit = findFallbackLimit(cfg.recallLimit);
    const answers = await Promise.all(
      ['viking://~/memories', 'viking://~/skills'].map((target_uri) =>
        this.call(trace, '/api/v1/search/find', cfg.timeoutMs, (signal) =>
          this.api.POST('/api/v1/search/find', { body: { query, target_uri, limit, score_threshold: 0 }, signal }),
        ),
      ),
    );
    const hits: FindHitDto[] = [];
    for (const a of answers) {
      const result = (
        a.data as { result?: { memories?: FindHitDto[]; resources?: FindHitDto[]; skills?: FindHitDto[] } } | undefined
      )?.result;
      if (a.status === 200 && result)
        hits.push(...(result.memories ?? []), ...(result.resources ?? []), ...(result.skills ?? []));
    }
    if (answers.every((a) => a.status !== 200))
      return { source: 'none', entries: [], rendered: '', digest: '', stats: null };
    const block = assembleFromFind(hits, {
      query,
      limit: cfg.recallLimit,
      tokenBudget: cfg.recallTokenBudget,
      maxContentChars: cfg.recallMaxContentChars,
    });
    return { source: 'find', ...block, digest: '', stats: null };
  }

  /**
   * What to inject (docs/contract.md#fallback-chain): nothing on `no_relevant`; else a local digest, the server digest
   * or the block.
   */
  private async injection(query: string, block: Block): Promise<string> {
    const cfg = this.opts.config;
    if (block.stats?.rewrite === 'no_relevant') return '';
    let text = block.digest || block.rendered;
    const compressor = this.opts.runCompressor;
    if (
      compressor &&
      block.rendered &&
      (cfg.recallCompress === 'client' || (cfg.recallCompress === 'auto' && !block.digest))
    ) {
      const out = await compressRecallContext({
        query,
        rendered: block.rendered,
        entries: block.entries,
        runCompressor: compressor,
        cachePath: join(cfg.stateDir, DIGEST_CACHE_FILE),
        minInputChars: cfg.recallCompressMinInputChars,
        maxInputChars: cfg.recallCompressMaxInputChars,
        maxBullets: cfg.recallCompressMaxBullets,
      });
      if (out.status === 'ok') text = out.context;
      else if (out.status === 'empty') text = '';
    }
    return text ? `<${CONTEXT_TAG}>\n${CONTEXT_HEADER}\n${text}\n</${CONTEXT_TAG}>` : '';
  }

  private async call(
    trace: string[],
    path: string,
    timeoutMs: number,
    send: (signal: AbortSignal) => Promise<{ data?: unknown; error?: unknown; response: Response }>,
  ): Promise<Answer> {
    try {
      const r = await send(AbortSignal.timeout(timeoutMs));
      trace.push(`POST ${path} → ${r.response.status}`);
      return { status: r.response.status, data: r.data, error: r.error };
    } catch (err) {
      trace.push(
        `POST ${path} → ${err instanceof Error && err.name === 'TimeoutError' ? `timeout after ${timeoutMs} ms` : 'no answer'}`,
      );
      return { status: 0, data: undefined, error: err instanceof Error ? err.message : String(err) };
    }
  }
}

type Block = Omit<RecallResult, 'injection' | 'trace'>;

function blockOf(source: RecallSource, result: ContextResultDto): Block {
  return {
    source,
    entries: result.entries ?? [],
    rendered: (result.rendered ?? '').trim(),
    digest: (result.digest ?? '').trim(),
    stats: result.stats ?? null,
  };
}

function empty(source: RecallSource, trace: string[]): RecallResult {
  return { source, entries: [], rendered: '', digest: '', stats: null, injection: '', trace };
}
