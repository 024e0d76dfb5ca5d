const INT_TEXT = /^[\t\n\v\f\r ]*([+-]?\d+(?:_\d+)*)[\t\n\v\f\r ]*$/;

/** Python `int(value)` for JSON values, or null where Python raises (None, "2.5", objects, inf/NaN). */
export function pyInt(value: unknown): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : null;
  if (typeof value === 'string') {
    const match = INT_TEXT.exec(value);
    return match ? Number(match[1]!.replace(/_/g, '')) : null;
  }
  return null;
}

/** Python `float(value)` for JSON values, or null where Python raises. */
export function pyFloat(value: unknown): number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^[+-]?(?:inf|infinity)$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/i.test(text)) return Number.NaN;
    if (!/^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+)?$/.test(text)) return null;
    return Number(text.replace(/_/g, ''));
  }
  return null;
}

/** Python truthiness for a JSON value (`None`, false, 0, "", [] and {} are falsy). */
export function pyTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

/** True for a plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
