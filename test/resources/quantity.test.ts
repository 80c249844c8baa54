import t from "tap";
import {
  divideRoundingUp,
  parseQuantity,
  parseQuantityBytes,
  quantityMilliValue,
  quantityValue,
} from "../../lib/resources/quantity.js";

t.test("value and milli-value, rounded up", async (t) => {
  const cases: [input: string | number, value: bigint, milli: bigint][] = [
    ["1", 1n, 1000n],
    [2, 2n, 2000n],
    ["250m", 1n, 250n],
    ["0.1", 1n, 100n],
    [".5", 1n, 500n],
    ["1.5", 2n, 1500n],
    ["1e3", 1000n, 1000000n],
    ["1E3", 1000n, 1000000n],
    ["1e-3", 1n, 1n],
    ["1E", 10n ** 18n, 10n ** 21n],
    ["1Ki", 1024n, 1024000n],
    ["1.5Gi", 1610612736n, 1610612736000n],
    ["64Mi", 67108864n, 67108864000n],
    ["1k", 1000n, 1000000n],
    ["1M", 1000000n, 1000000000n],
    ["100n", 1n, 1n],
    ["1u", 1n, 1n],
    ["0", 0n, 0n],
    ["+3", 3n, 3000n],
    ["1Ei", 1n << 60n, (1n << 60n) * 1000n],
  ];
  for (const [input, value, milli] of cases) {
    const q = parseQuantity(input)!;
    t.ok(q, `${input} parses`);
    t.equal(quantityValue(q), value, `${input} value`);
    t.equal(quantityMilliValue(q), milli, `${input} milli`);
  }
});

t.test("not quantities", async (t) => {
  for (const input of ["", "abc", "1KB", "1 Gi", "1ki", "--1", "1e", "1.2.3", "Mi"])
    t.equal(parseQuantity(input), undefined, JSON.stringify(input));
});

t.test("negative values round up towards zero", async (t) => {
  t.equal(quantityValue(parseQuantity("-1.5")!), -1n);
  t.equal(divideRoundingUp(7n, 2n), 4n);
  t.equal(divideRoundingUp(-7n, 2n), -3n);
  t.equal(divideRoundingUp(6n, 2n), 3n);
});

t.test("bytes: positive values only", async (t) => {
  t.equal(parseQuantityBytes("64Mi"), 64 * 1024 * 1024);
  t.equal(parseQuantityBytes("1.5k"), 1500);
  t.equal(parseQuantityBytes("500m"), 1);
  t.equal(parseQuantityBytes("0"), undefined);
  t.equal(parseQuantityBytes("-1Ki"), undefined);
  t.equal(parseQuantityBytes("x"), undefined);
});
