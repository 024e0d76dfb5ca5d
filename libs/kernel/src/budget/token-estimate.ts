// Inclusive code-point ranges that cost 1.5 tokens: CJK ideographs, kana, hangul, full-width forms.
const WIDE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xf900, 0xfaff],
  [0x20000, 0x2ebef],
  [0x3040, 0x30ff],
  [0x31f0, 0x31ff],
  [0xac00, 0xd7af],
  [0x1100, 0x11ff],
  [0x3130, 0x318f],
  [0xff00, 0xffef],
  [0x3000, 0x303f],
];

function weight(codePoint: number): number {
  for (const [low, high] of WIDE_RANGES) {
    if (codePoint >= low && codePoint <= high) return 1.5;
  }
  return codePoint > 0xffff ? 2 : 0.25;
}

/** CJK-aware token estimate (docs/contract.md#token-estimate): weighted code points, rounded up; "" → 0. */
export function estimateTokens(text: string): number {
  let sum = 0;
  for (const ch of text) sum += weight(ch.codePointAt(0)!);
  // Every weight is a multiple of 0.25, so the float sum is exact and ceil is safe.
  return Math.ceil(sum);
}
