/** pgvector text literal, e.g. `[0.1,-0.25,0]`; 6 significant digits is below float32 noise for unit vectors' ranking. */
export function toPgVector(v: ArrayLike<number>, significantDigits = 6): string {
  const parts = new Array<string>(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!Number.isFinite(x)) throw new RangeError(`toPgVector: non-finite value at ${i}`);
    parts[i] = x === 0 ? '0' : String(Number(x.toPrecision(significantDigits)));
  }
  return `[${parts.join(',')}]`;
}

/** Parses a pgvector text literal (`[1,2,3]`) back into a Float32Array. */
export function fromPgVector(literal: string): Float32Array {
  const s = literal.trim();
  if (!s.startsWith('[') || !s.endsWith(']')) throw new SyntaxError(`fromPgVector: not a vector literal`);
  const body = s.slice(1, -1).trim();
  if (body === '') return new Float32Array(0);
  const parts = body.split(',');
  const out = new Float32Array(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const x = Number(parts[i]);
    if (!Number.isFinite(x)) throw new SyntaxError(`fromPgVector: bad number at ${i}`);
    out[i] = x;
  }
  return out;
}
