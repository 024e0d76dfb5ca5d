import { collapseWhitespace, PY_WS, pyStrip } from '../text/py-text';

const WS = `[${PY_WS}]`;
// `# Summary` (levels 1-3, any case) up to the next level 1-3 heading or the end.
const SECTION = /(?<=^|\n)#{1,3}[ \t]*summary[ \t]*\n([\s\S]*?)(?=(?<=\n)#{1,3}[ \t]|$)/iu;
// Legacy layout: `Summary: …` up to a dated `ChatLog:` line, a bare `ChatLog:`, the trailer, or the end.
const INLINE = new RegExp(
  `^${WS}*summary:${WS}*([\\s\\S]*?)(?:\\n${WS}*\\p{Nd}{4}-\\p{Nd}{2}-\\p{Nd}{2}(?:${WS}*\\([^)]+\\))?${WS}*chatlog:` +
    `|\\n${WS}*chatlog:|\\n${WS}*<!--${WS}*memory_fields|(?=\\n?$))`,
  'iu',
);

/** The memory overview (§8.4 item 3): the `# Summary` section, else the legacy inline form, else "". */
export function extractSummary(content: string): string {
  if (!content) return '';
  const section = SECTION.exec(content);
  if (section) return pyStrip(section[1]!);
  const inline = INLINE.exec(content);
  return inline ? collapseWhitespace(inline[1]!) : '';
}
