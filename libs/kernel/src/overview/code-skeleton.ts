import { DeclarationRule, LanguageRules, languageFor, NOT_A_NAME } from './code-languages';

const MAX_SIGNATURE_LINES = 12;
const MAX_SIGNATURES = 400;
// Longer lines are never tested as declarations: several rules have overlapping quantifiers, so their
// cost grows with the square of the line length; with this cap the skeleton is linear in the file.
export const MAX_DECLARATION_LINE = 300;

type Scan = { kind: 'accept'; text: string; lastLine: number } | { kind: 'reject' };

/** Find where a declaration's signature ends, tracking ()/[] depth and skipping string literals. */
function scanSignature(lines: readonly string[], start: number, language: LanguageRules, rule: DeclarationRule): Scan {
  let depth = 0;
  let text = '';
  const last = Math.min(lines.length, start + MAX_SIGNATURE_LINES);
  for (let row = start; row < last; row += 1) {
    const line = lines[row]!;
    let quote: string | null = null;
    for (let col = 0; col < line.length; col += 1) {
      const ch = line[col]!;
      if (quote) {
        if (ch === '\\') col += 1;
        else if (ch === quote) quote = null;
        continue;
      }
      if (language.quotes.includes(ch)) quote = ch;
      else if (ch === '(' || ch === '[') depth += 1;
      else if (ch === ')' || ch === ']') depth -= 1;
      else if (depth === 0 && language.end === 'colon' && ch === ':') {
        return { kind: 'accept', text: text + line.slice(0, col + 1), lastLine: row };
      } else if (depth === 0 && language.end === 'brace') {
        if (ch === '{') return { kind: 'accept', text: text + line.slice(0, col), lastLine: row };
        if (ch === ';')
          return rule.bodyless
            ? { kind: 'accept', text: text + line.slice(0, col), lastLine: row }
            : { kind: 'reject' };
        if (rule.arrow && ch === '=' && line[col + 1] === '>') {
          return { kind: 'accept', text: text + line.slice(0, col + 2), lastLine: row };
        }
      }
    }
    text += `${line}\n`;
  }
  return { kind: 'reject' };
}

function tidy(raw: string): string {
  const indent = /^\s*/.exec(raw)![0];
  const body = raw
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line)
    .join(' ')
    // Each whitespace run once: dropped after an opening or before a closing bracket. (A pattern for "spaces
    // before a bracket" rescanned a long run from each of its spaces.)
    .replace(/\s+/g, (ws: string, at: number, s: string) =>
      '(['.includes(s[at - 1] ?? '') || ')]'.includes(s[at + ws.length] ?? '') ? '' : ws,
    )
    .trimEnd();
  return indent + body;
}

function matchingRule(line: string, language: LanguageRules): DeclarationRule | null {
  if (line.length > MAX_DECLARATION_LINE) return null;
  const trimmed = line.trimStart();
  if (language.lineComment && trimmed.startsWith(language.lineComment)) return null;
  if (trimmed.startsWith('/*') || trimmed.startsWith('*')) return null;
  for (const rule of language.rules) {
    const match = rule.pattern.exec(line);
    if (match && !(rule.name && NOT_A_NAME.has(match[rule.name]!))) return rule;
  }
  return null;
}

/**
 * Regex-based outline of a source file (docs/contract.md#tier-texts item 2, docs/contract.md#tier-texts):
 * class/function signatures in
 * source order, indentation kept, bodies dropped. "" for unsupported languages or no matches.
 */
export function codeSkeleton(fileName: string, content: string): string {
  const language = languageFor(fileName);
  if (!language || !content) return '';
  const lines = content.split(/\r\n|\n|\r/);
  const signatures: string[] = [];
  for (let row = 0; row < lines.length && signatures.length < MAX_SIGNATURES; row += 1) {
    const rule = matchingRule(lines[row]!, language);
    if (!rule) continue;
    const scan = scanSignature(lines, row, language, rule);
    if (scan.kind === 'reject') continue;
    signatures.push(tidy(scan.text));
    row = scan.lastLine;
  }
  return signatures.join('\n');
}
