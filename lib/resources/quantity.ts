// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), read exactly: a
// quantity is kept as a fraction of big integers, so that `0.1`, `100m` and `1e-1` are the same
// value and rounding happens once, where the API rounds (Value and MilliValue round up).

/** A quantity's exact value, `numerator / denominator` (denominator > 0). */
export interface Quantity {
  numerator: bigint;
  denominator: bigint;
}

const BINARY_SUFFIXES: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL_EXPONENTS: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

// <sign><digits>[.<digits>]<suffix>, the suffix binary (Ki…Ei), decimal SI (n…E) or an exponent
// (e3, E-2); "1E" is exa, "1E3" a thousand, as the API reads them.
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([KMGTPE]i|[numkMGTPE])|[eE]([+-]?\d+))?$/;

/** The quantity `text` (or a plain number) as an exact fraction; undefined when it does not parse. */
export function parseQuantity(text: string | number): Quantity | undefined {
  const match = QUANTITY.exec(String(text).trim());
  if (!match) return undefined;
  const [, sign = "", number = "", suffix = "", exponent] = match;
  const [whole = "", fraction = ""] = number.split(".");
  let numerator = BigInt(`${whole || "0"}${fraction}`) * (sign === "-" ? -1n : 1n);
  let denominator = 10n ** BigInt(fraction.length);
  const power = exponent !== undefined ? Number(exponent) : (DECIMAL_EXPONENTS[suffix] ?? 0);
  if (BINARY_SUFFIXES[suffix] !== undefined) numerator *= BINARY_SUFFIXES[suffix];
  else if (power >= 0) numerator *= 10n ** BigInt(power);
  else denominator *= 10n ** BigInt(-power);
  return { numerator, denominator };
}

/** Quantity.Value(): the value as an integer, rounded up. */
export function quantityValue(quantity: Quantity): bigint {
  return divideRoundingUp(quantity.numerator, quantity.denominator);
}

/** Quantity.MilliValue(): the value in thousandths, rounded up. */
export function quantityMilliValue(quantity: Quantity): bigint {
  return divideRoundingUp(quantity.numerator * 1000n, quantity.denominator);
}

export function isZeroQuantity(quantity: Quantity): boolean {
  return quantity.numerator === 0n;
}

/** ⌈a / b⌉ for b > 0. */
export function divideRoundingUp(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n === b > 0n ? q + 1n : q;
}

/**
 * A quantity in bytes, rounded up as the API server rounds byte quantities; undefined for zero,
 * a negative or unreadable value.
 */
export function parseQuantityBytes(quantity: string | number): number | undefined {
  const parsed = parseQuantity(quantity);
  if (!parsed) return undefined;
  const bytes = quantityValue(parsed);
  return bytes > 0n && bytes <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(bytes) : undefined;
}
