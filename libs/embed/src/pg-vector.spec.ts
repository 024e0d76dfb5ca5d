import { fromPgVector, toPgVector } from './pg-vector';
import { cosine, l2Normalize } from './vector-math';

describe('pgvector literals', () => {
  it.each([
    ['plain', [0.1, -0.25, 0], '[0.1,-0.25,0]'],
    ['float32 noise trimmed', Array.from(new Float32Array([0.1, 1 / 3])), '[0.1,0.333333]'],
    ['empty', [], '[]'],
  ])('formats %s', (_name, v, literal) => {
    expect(toPgVector(v)).toBe(literal);
  });

  it('round-trips within float32 precision', () => {
    const v = l2Normalize(Float32Array.from({ length: 64 }, (_, i) => Math.sin(i + 1)));
    expect(cosine(fromPgVector(toPgVector(v)), v)).toBeCloseTo(1, 6);
  });

  it('rejects non-finite values and malformed literals', () => {
    expect(() => toPgVector([Number.NaN])).toThrow(RangeError);
    expect(() => fromPgVector('1,2')).toThrow(SyntaxError);
    expect(() => fromPgVector('[1,x]')).toThrow(SyntaxError);
  });
});

describe('cosine', () => {
  it.each([
    ['identical', [1, 2], [1, 2], 1],
    ['orthogonal', [1, 0], [0, 3], 0],
    ['opposite', [1, 1], [-2, -2], -1],
    ['zero vector', [0, 0], [1, 0], 0],
  ])('%s', (_name, a, b, expected) => {
    expect(cosine(a, b)).toBeCloseTo(expected, 6);
  });
});
