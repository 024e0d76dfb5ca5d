/**
 * Bytes `text` takes as a JSON string, quotes included, as `JSON.stringify` writes it: its UTF-8 bytes, one more for a
 * quote, a backslash or a control character with a short escape (`\n`, `\t`, …), five more for any other control
 * character (`\u0001`). What one file takes in an account export's line (docs/limits-and-security.md, "Storage
 * quota"). Linear, one pass over the UTF-16 units.
 */
export function jsonStringBytes(text: string): number {
  let extra = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92) extra += 1;
    else if (c < 0x20) extra += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 1 : 5;
  }
  return Buffer.byteLength(text, 'utf8') + extra;
}
