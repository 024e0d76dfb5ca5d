import { stripMemoryFields } from '../overview/memory-fields';
import { cutCodePoints } from '../text/py-text';

/** Longest abstract kept for a non-memory file or a directory (the contract's L0 size). */
export const ABSTRACT_LIMIT = 256;
/** Default of MUNINN_MEMORY_ABSTRACT_MAX_CHARS: a memory's abstract is its body up to this many code points. */
export const MEMORY_ABSTRACT_LIMIT = 16000;
/** What {@link cutAtWord} ends a cut text with. */
const CUT_MARK = '…';
/** Longest directory overview (the contract's L1 size). */
export const OVERVIEW_LIMIT = 4000;

/**
 * The abstract of a file node: for memory files the stripped body (it doubles as embedding text,
 * docs/contract.md#tiers-and-sidecars), cut at `memoryLimit` code points (docs/limits-and-security.md,
 * "Work per byte": a 9.5 MB memory made every find hit, its trip through Redis and its directory's
 * summary 9.5 MB); for other files a short extractive summary: the first paragraph that is not a
 * heading or code fence, led by the title when there is one, cut to {@link ABSTRACT_LIMIT} code points.
 */
export function fileAbstract(uri: string, content: string, memoryLimit: number): string {
  if (uri.includes('/memories/')) return cutAtWord(stripMemoryFields(content), memoryLimit);
  const blocks = content
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .map((b) => b.trim())
    .filter(Boolean);
  const title = /^#{1,3}[ \t]+(\S.*)$/m.exec(blocks[0] ?? '')?.[1]?.trim();
  const para = blocks.find((b) => !b.startsWith('#') && !b.startsWith('```') && !b.startsWith('---'));
  const text = [title, para?.replace(/\s+/g, ' ')].filter(Boolean).join(': ');
  return cutAtWord(text || content.replace(/\s+/g, ' ').trim(), ABSTRACT_LIMIT);
}

/**
 * Whether an indexed file's abstract is its whole body as an assembly reads it (`normalizeReadContent`): a
 * memory file's abstract is its stripped body unless {@link cutAtWord} cut it, and a cut always ends with
 * its ellipsis. Config-free on purpose: an abstract indexed under another `memoryLimit` answers the same.
 * A body that itself ends with "…" is read anyway (docs/context.md, "Bodies the search carries").
 */
export function abstractIsWholeBody(uri: string, abstract: string): boolean {
  return uri.includes('/memories/') && !abstract.endsWith(CUT_MARK);
}

/** Cuts to `limit` code points, preferring the last word boundary, with an ellipsis when cut. */
export function cutAtWord(text: string, limit: number): string {
  // Counted up to the limit only: a multi-megabyte body is not spread into code points to be measured.
  if (cutCodePoints(text, limit).length === text.length) return text;
  const head = cutCodePoints(text, limit - 1);
  const space = head.lastIndexOf(' ');
  return `${space > limit * 0.6 ? head.slice(0, space) : head}${CUT_MARK}`;
}
