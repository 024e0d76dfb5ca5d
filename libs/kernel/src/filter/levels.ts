const INT_TEXT = /^[+-]?\d+$/;

function parsePart(part: string): number | null {
  const text = part.trim();
  return INT_TEXT.test(text) ? Number(text) : null;
}

/**
 * Parse `level` (docs/contract.md#find-request): an int, `"0,2"`, or a list; unparsable parts are skipped, null → [].
 */
export function parseLevels(value: unknown): number[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'number') return Number.isInteger(value) ? [value] : [];
  if (typeof value === 'string') {
    return value
      .split(',')
      .map(parsePart)
      .filter((level): level is number => level !== null);
  }
  if (Array.isArray(value)) {
    const levels: number[] = [];
    for (const item of value) {
      if (typeof item === 'number' && Number.isInteger(item)) levels.push(item);
      else if (typeof item === 'string') {
        const parsed = parsePart(item);
        if (parsed !== null) levels.push(parsed);
      }
    }
    return levels;
  }
  return [];
}
