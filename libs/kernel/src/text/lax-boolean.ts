const TRUE_WORDS = new Set(['1', 'on', 't', 'true', 'y', 'yes']);
const FALSE_WORDS = new Set(['0', 'off', 'f', 'false', 'n', 'no']);

/**
 * The one lax boolean of request bodies and query strings (pydantic's set, docs/contract.md#context-only-fields):
 * booleans, 0/1, and the words true/false, t/f, yes/no, y/n, on/off, 1/0 in any case, untrimmed. Anything else is `undefined`.
 */
export function parseLaxBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value !== 'string') return undefined;
  const word = value.toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}
