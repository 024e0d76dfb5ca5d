import { VIKING_ROOT } from './uri-path';

/** How long and deep a `viking://` URI may be (MUNINN_URI_MAX_CHARS, _MAX_DEPTH, _MAX_SEGMENT_CHARS). */
export interface UriShapeBounds {
  maxChars: number;
  maxDepth: number;
  maxSegmentChars: number;
}

export interface UriShapeIssue {
  type: 'string_too_long' | 'uri_segment_too_long' | 'uri_too_deep';
  message: string;
}

/**
 * What is wrong with `uri`'s length or shape, or null: one pass, before anything splits it (docs/limits-and-security.md,
 * "URIs"). The store's key on a URI cannot hold a segment of a few thousand characters, and the writes build each
 * of a URI's ancestors, so a URI of 20,000 segments cost 4×10⁸ characters of work on the event loop. The request
 * gate checks every URI of a body or query with it; an account import, whose body the gate does not parse, each
 * node's.
 */
export function uriShapeIssue(uri: string, b: UriShapeBounds): UriShapeIssue | null {
  if (uri.length > b.maxChars) {
    return { type: 'string_too_long', message: `String should have at most ${b.maxChars} characters` };
  }
  let depth = 0;
  let start = uri.startsWith(VIKING_ROOT) ? VIKING_ROOT.length : 0;
  while (start <= uri.length) {
    let end = uri.indexOf('/', start);
    if (end < 0) end = uri.length;
    if (end > start) depth++;
    if (end - start > b.maxSegmentChars) {
      const message = `URI path segments should have at most ${b.maxSegmentChars} characters`;
      return { type: 'uri_segment_too_long', message };
    }
    start = end + 1;
  }
  if (depth > b.maxDepth) {
    return { type: 'uri_too_deep', message: `URI should have at most ${b.maxDepth} path segments, not ${depth}` };
  }
  return null;
}
