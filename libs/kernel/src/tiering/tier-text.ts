import { codeSkeleton } from '../overview/code-skeleton';
import { documentOutline } from '../overview/document-outline';
import { stripMemoryFields } from '../overview/memory-fields';
import { extractSummary } from '../overview/memory-summary';
import { stripOkfFrontmatter } from '../overview/okf-frontmatter';
import { pyStrip } from '../text/py-text';
import { baseName } from '../uri/uri-path';
import { Candidate } from './candidate';
import { Tier } from './tier';

type ContentSource = Pick<Candidate, 'baseUri' | 'isDirectory'>;

const OVERVIEW_SIDECAR = '/.overview.md';

/** URI whose body backs a candidate's overview/full tiers: `{dir}/.overview.md` for directories. */
export function contentUriFor(candidate: ContentSource): string {
  return candidate.isDirectory ? `${candidate.baseUri}${OVERVIEW_SIDECAR}` : candidate.baseUri;
}

/** The directory whose overview sidecar a content URI names (`contentUriFor` undone), or null for a file's. */
export function sidecarDirectory(contentUri: string): string | null {
  return contentUri.endsWith(OVERVIEW_SIDECAR) ? contentUri.slice(0, -OVERVIEW_SIDECAR.length) : null;
}

/**
 * Clean a body right after reading (docs/contract.md#tier-texts): memory files lose their MEMORY_FIELDS trailer and are
 * trimmed.
 */
export function normalizeReadContent(candidate: ContentSource, raw: string): string {
  if (!raw) return '';
  if (!candidate.isDirectory && contentUriFor(candidate).includes('/memories/')) return stripMemoryFields(raw);
  return raw;
}

/**
 * Overview text by source (docs/contract.md#tier-texts): directory sidecar body, code skeleton, memory summary,
 * document outline.
 */
export function overviewFromContent(candidate: ContentSource, content: string): string {
  if (!content) return '';
  if (candidate.isDirectory) return pyStrip(stripOkfFrontmatter(content));
  const skeleton = codeSkeleton(baseName(candidate.baseUri), content);
  if (skeleton) return pyStrip(skeleton);
  if (candidate.baseUri.includes('/memories/')) {
    const summary = extractSummary(content);
    if (summary) return summary;
  }
  return documentOutline(content);
}

/** Text served at `tier`, or null when the tier is unavailable; `uri` is always "" (docs/contract.md#tier-texts). */
export function tierText(candidate: Candidate, tier: Tier, contents: ReadonlyMap<string, string>): string | null {
  if (tier === 'uri') return '';
  if (tier === 'abstract') return pyStrip(candidate.abstract) || null;
  const content = contents.get(contentUriFor(candidate)) ?? '';
  if (tier === 'overview') return overviewFromContent(candidate, content) || null;
  if (candidate.isDirectory) return null;
  return pyStrip(content) || null;
}
