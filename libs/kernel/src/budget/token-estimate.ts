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

// Below the first wide range every code point is narrow, so most text never reaches the range list.
const FIRST_WIDE = 0x1100;

/** Weight of one code point in quarter tokens (every weight is a multiple of 0.25). */
function quarters(codePoint: number): number {
  for (const [low, high] of WIDE_RANGES) {
    if (codePoint >= low && codePoint <= high) return 6;
  }
  return codePoint > 0xffff ? 8 : 1;
}

/**
 * CJK-aware token estimate (docs/contract.md#token-estimate): weighted code points, rounded up; "" → 0.
 * On the hot path of every assembly (each planned entry is measured several times), so it walks UTF-16
 * units by index rather than iterating code-point strings, and counts whole quarters.
 */
export function estimateTokens(text: string): number {
  let sum = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const unit = text.charCodeAt(i);
    if (unit < FIRST_WIDE) {
      sum += 1;
      continue;
    }
    let codePoint = unit;
    // A high surrogate followed by a low one is one astral code point; a lone surrogate counts alone.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < n) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        codePoint = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    sum += quarters(codePoint);
  }
  return Math.ceil(sum / 4);
}

/**
 * What one model call cost, for an account's model budget (docs/limits-and-security.md, "Model budget"):
 * the provider's reported usage, or, when it reports none, the estimate of the texts sent and answered.
 */
export function modelCallTokens(
  usage: { prompt_tokens: number; completion_tokens: number } | null | undefined,
  texts: readonly string[],
): number {
  if (usage) return usage.prompt_tokens + usage.completion_tokens;
  return texts.reduce((n, t) => n + estimateTokens(t), 0);
}
