import { createHash } from 'node:crypto';
import { editDistance } from './edit-distance';
import { readStateFile, writeStateFile } from './state-file';

// The host-side digest (docs/contract.md#local-digest): a compressor the agent host provides turns the rendered
// block into a few cited bullets. Everything the compressor sees is part of the cache key.

/** Same header as the server's digest (Muninn's deliberate difference from the reference). */
export const DIGEST_HEADER = 'Memory digest:';
export const NO_RELEVANT_MEMORY = 'NO_RELEVANT_MEMORY';
export const DIGEST_CACHE_FILE = 'recall-digest.json';
const CACHE_KEY_VERSION = 2;
const MAX_BULLET_CHARS = 500;
const MAX_DIGEST_CHARS = 4000;
const BULLET = /^[-*]\s+/;
const CITATION = /viking:\/\/[^\s<>"')\]]+/g;

export type RunCompressor = (prompt: string) => Promise<string>;

export interface DigestKeyInput {
  query: string;
  rendered: string;
  uris: readonly string[];
  maxInputChars: number;
  maxBullets: number;
}

/** SHA-256 over every compressor input: query, the rendered block as cut, the served URI set, the limits. */
export function digestCacheKey(input: DigestKeyInput): string {
  const source = JSON.stringify({
    version: CACHE_KEY_VERSION,
    query: input.query,
    rendered: input.rendered.slice(0, input.maxInputChars),
    uris: [...input.uris].sort(),
    maxInputChars: input.maxInputChars,
    maxBullets: input.maxBullets,
  });
  return createHash('sha256').update(source).digest('hex');
}

/** The prompt the host compressor gets. */
export function buildCompressionPrompt(query: string, rendered: string, maxBullets: number): string {
  return [
    'You compress retrieved memory for an AI agent. Keep only facts that help with the query below.',
    `Answer with at most ${maxBullets} bullets, each one line starting with "- ", under 120 characters of prose,`,
    'ending with "source: <uri>" where <uri> is the exact viking:// URI of the <memory> element it came from.',
    `If nothing is relevant, answer exactly ${NO_RELEVANT_MEMORY}.`,
    '',
    `Query: ${query}`,
    '',
    rendered,
  ].join('\n');
}

/**
 * Keeps only cited bullets (docs/contract.md#local-digest): `""` for NO_RELEVANT_MEMORY, null when no bullet survives.
 * Bullets become `- …`, at most `maxBullets`, each cut to 500 chars, the digest to `maxChars`.
 */
export function normalizeCompressed(raw: string, maxChars = MAX_DIGEST_CHARS, maxBullets = 6): string | null {
  const text = raw.trim();
  if (text.toUpperCase() === NO_RELEVANT_MEMORY) return '';
  const bullets: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (!BULLET.test(t) || !t.includes('viking://')) continue;
    bullets.push(`- ${t.replace(BULLET, '')}`.slice(0, MAX_BULLET_CHARS).trimEnd());
    if (bullets.length >= Math.max(1, maxBullets)) break;
  }
  if (!bullets.length) return null;
  let digest = DIGEST_HEADER;
  for (const b of bullets) {
    if (digest.length + 1 + b.length > maxChars) break;
    digest += `\n${b}`;
  }
  return digest === DIGEST_HEADER ? null : digest;
}

function decoded(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}

/** The served URI a cited one stands for: exact, percent-decoded, or within edit distance max(4, ⌊len/4⌋). */
export function snapUri(cited: string, served: readonly string[]): string | null {
  if (served.includes(cited)) return cited;
  const plain = decoded(cited);
  if (served.includes(plain)) return plain;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const uri of served) {
    const d = editDistance(plain, uri);
    if (d < bestDistance) [best, bestDistance] = [uri, d];
  }
  return best !== null && bestDistance <= Math.max(4, Math.floor(plain.length * 0.25)) ? best : null;
}

/**
 * Citation repair: every cited URI snaps to the nearest served URI; a bullet citing anything that
 * cannot be snapped is dropped. Returns "" when no bullet is left.
 */
export function repairDigestUris(digest: string, served: readonly string[]): string {
  const kept: string[] = [];
  for (const line of digest.split('\n')) {
    if (line === DIGEST_HEADER) continue;
    let ok = line.length > 0;
    const fixed = line.replace(CITATION, (cited) => {
      const snapped = snapUri(cited, served);
      if (snapped === null) ok = false;
      return snapped ?? cited;
    });
    if (ok && fixed.includes('viking://')) kept.push(fixed);
  }
  return kept.length ? `${DIGEST_HEADER}\n${kept.join('\n')}` : '';
}

export interface CompressInput {
  query: string;
  rendered: string;
  entries: readonly { uri: string }[];
  runCompressor: RunCompressor;
  /** Cache file; none → no cache. */
  cachePath?: string;
  minInputChars: number;
  maxInputChars: number;
  maxBullets: number;
}

export type CompressOutcome =
  { status: 'ok'; context: string } | { status: 'empty'; context: '' } | { status: 'failed'; context: '' };

/** Runs the host compressor once per distinct input (single-entry cache, docs/contract.md#local-digest). */
export async function compressRecallContext(input: CompressInput): Promise<CompressOutcome> {
  const text = input.rendered.trim();
  if (!text) return { status: 'empty', context: '' };
  if (text.length < input.minInputChars) return { status: 'ok', context: text };
  const maxInputChars = Math.max(1000, input.maxInputChars);
  const maxBullets = Math.max(1, input.maxBullets);
  const uris = input.entries.map((e) => e.uri);
  const key = digestCacheKey({ query: input.query, rendered: text, uris, maxInputChars, maxBullets });
  const cached = input.cachePath
    ? ((await readStateFile(input.cachePath)) as { key?: unknown; digest?: unknown } | null)
    : null;
  if (cached?.key === key && typeof cached.digest === 'string') {
    return cached.digest ? { status: 'ok', context: cached.digest } : { status: 'empty', context: '' };
  }
  let raw: string;
  try {
    raw = await input.runCompressor(buildCompressionPrompt(input.query, text.slice(0, maxInputChars), maxBullets));
  } catch {
    return { status: 'failed', context: '' };
  }
  const normalized = normalizeCompressed(String(raw ?? ''), MAX_DIGEST_CHARS, maxBullets);
  if (normalized === null) return { status: 'failed', context: '' };
  const digest = normalized === '' ? '' : repairDigestUris(normalized, uris);
  if (normalized !== '' && digest === '') return { status: 'failed', context: '' };
  if (input.cachePath)
    await writeStateFile(input.cachePath, { key, digest, updatedAt: Date.now() }).catch(() => undefined);
  return digest ? { status: 'ok', context: digest } : { status: 'empty', context: '' };
}
