import { cutCodePoints } from '../text/py-text';
import type { MessagePart } from './session-message';

/**
 * Large tool output externalisation (docs/sessions.md "Tool results"). Every length here is in
 * Unicode code points, the unit of the tool-result routes' offsets.
 */
export interface ToolOutputLimits {
  /** One output longer than this is externalised (`single_threshold`). */
  thresholdChars: number;
  /** The inline outputs of one added turn (all the messages of one body) must fit in this (`turn_budget`). */
  turnBudgetChars: number;
  /** Code points of the output kept inline as its preview. */
  previewChars: number;
}

export type ExternaliseReason = 'single_threshold' | 'turn_budget';

/** A tool part to externalise: its message and part index in the turn, and why. */
export interface ToolOutputPick {
  message: number;
  part: number;
  reason: ExternaliseReason;
  originalChars: number;
}

/** Room the preview's closing line takes (it names the ref, the size and the digest). */
export const PREVIEW_FOOTER_ALLOWANCE = 320;

/** Length in code points (a surrogate pair counts once). Linear. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const outputOf = (p: MessagePart): string =>
  p.type === 'tool' && typeof p.tool_output === 'string' ? p.tool_output : '';

/** A client re-sending a part it read back already carries its ref: it is not externalised twice. */
const alreadyExternal = (p: MessagePart) => typeof p.tool_output_ref === 'string' && p.tool_output_ref !== '';

/**
 * Which tool outputs of one added turn to store as tool results: every output over the threshold,
 * then the largest remaining ones while the turn's inline total (outputs left inline plus the
 * previews of the picked ones) is over the turn budget and picking one still shrinks it.
 */
export function planToolOutputs(turn: MessagePart[][], limits: ToolOutputLimits): ToolOutputPick[] {
  const candidates: ToolOutputPick[] = [];
  for (const [m, parts] of turn.entries()) {
    for (const [p, part] of parts.entries()) {
      const out = outputOf(part);
      if (out === '' || alreadyExternal(part)) continue;
      const originalChars = codePointLength(out);
      candidates.push({ message: m, part: p, originalChars, reason: 'single_threshold' });
    }
  }
  const previewCost = (c: ToolOutputPick) => Math.min(c.originalChars, limits.previewChars) + PREVIEW_FOOTER_ALLOWANCE;
  const picked = candidates.filter((c) => c.originalChars > limits.thresholdChars);
  const rest = candidates
    .filter((c) => c.originalChars <= limits.thresholdChars)
    .sort((a, b) => b.originalChars - a.originalChars);
  let inline = picked.reduce((n, c) => n + previewCost(c), 0) + rest.reduce((n, c) => n + c.originalChars, 0);
  for (const c of rest) {
    if (inline <= limits.turnBudgetChars) break;
    if (c.originalChars <= previewCost(c)) break; // sorted: no smaller output shrinks the turn either
    picked.push({ ...c, reason: 'turn_budget' });
    inline += previewCost(c) - c.originalChars;
  }
  return picked.sort((a, b) => a.message - b.message || a.part - b.part);
}

/**
 * The inline stand-in of an externalised output: its first `previewChars` code points and a closing
 * line saying where the whole output is and how to read it.
 */
export function toolOutputPreview(
  output: string,
  o: { ref: string; originalChars: number; previewChars: number; sha256: string; reason: ExternaliseReason },
): string {
  const head = cutCodePoints(output, o.previewChars);
  const shown = codePointLength(head);
  return (
    `${head}\n…\n[tool output externalised (${o.reason}): showing ${shown} of ${o.originalChars} characters; ` +
    `sha256 ${o.sha256}; full output: ${o.ref}]`
  );
}
