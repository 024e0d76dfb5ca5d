// Python's `'%.2f' % x` rounds the exact binary value of the double (ties to even only when the
// double is exactly halfway), which `Number.prototype.toFixed` does not promise. So decompose the
// double into mantissa·2^exponent and round the exact rational with BigInt arithmetic.

function decompose(value: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const high = view.getUint32(0);
  const low = view.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  const fraction = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  if (biased === 0) return { mantissa: fraction, exponent: -1074 };
  return { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

function hundredths(magnitude: number): bigint {
  const { mantissa, exponent } = decompose(magnitude);
  if (exponent >= 0) return (mantissa * 100n) << BigInt(exponent);
  const numerator = mantissa * 100n;
  const denominator = 1n << BigInt(-exponent);
  const quotient = numerator / denominator;
  const twiceRemainder = (numerator % denominator) * 2n;
  if (twiceRemainder > denominator) return quotient + 1n;
  if (twiceRemainder === denominator && quotient % 2n === 1n) return quotient + 1n;
  return quotient;
}

/** Python `'%.2f' % value`, byte for byte: 0.125 → "0.12", 0.375 → "0.38", -0.001 → "-0.00". */
export function formatScore(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  const negative = value < 0 || Object.is(value, -0);
  const digits = hundredths(Math.abs(value)).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
