// The highest count seen of each of a row's most recent event names (fold.ts): a ring of a
// fixed size, so a row that lives through millions of lines never grows. Names are kept as a
// 53-bit hash (line-scan.ts), not as strings: the scanner hashes them where they lie in the
// log, and a string per line cost more than the rest of the bookkeeping. Two names of one row
// that collide in 53 bits would count as one; with 16 names a row that is ~2^-49 per line.

/** Names remembered per row: more than the runs of one pod that could overlap in time. */
export const NAMES_KEPT = 16;

export class NameCounts {
  // hash, count, hash, count…: one plain array of doubles on the JS heap, grown as names come.
  // Two Float64Arrays per row, each an ArrayBuffer with its own off-heap store, were slow to
  // create: this took ~40 ms and ~3 MB of RSS off listing 100,000 events (4,600 rows).
  private readonly slots: number[] = [];
  /** Where the next name goes once the ring is full: the oldest. */
  private next = 0;

  /**
   * Writes the ring into `out` from `at` (fold-checkpoint.ts): where the next name goes, how
   * many numbers it holds, then its hash/count pairs, NaN-padded to NAMES_KEPT pairs.
   */
  toNumbers(out: Float64Array, at: number): void {
    out[at] = this.next;
    out[at + 1] = this.slots.length;
    for (let i = 0; i < NAMES_KEPT * 2; i++) out[at + 2 + i] = i < this.slots.length ? this.slots[i]! : Number.NaN;
  }

  /** The ring toNumbers wrote at `at`; undefined if the numbers cannot be one. */
  static fromNumbers(values: Float64Array, at: number): NameCounts | undefined {
    const next = values[at]!;
    const length = values[at + 1]!;
    if (!Number.isInteger(length) || length < 0 || length > NAMES_KEPT * 2 || length % 2 !== 0) return undefined;
    if (!Number.isInteger(next) || next < 0 || next % 2 !== 0 || next >= NAMES_KEPT * 2 || (length < NAMES_KEPT * 2 && next !== 0)) return undefined;
    const names = new NameCounts();
    for (let i = 0; i < length; i++) {
      const value = values[at + 2 + i]!;
      if (!Number.isFinite(value)) return undefined;
      names.slots.push(value);
    }
    names.next = next;
    return names;
  }

  get size(): number {
    return this.slots.length / 2;
  }

  /**
   * Records `count` for the name hashed `hash` if it is more than the name had counted, and
   * returns what it had counted before (0 for a new name, or one forgotten), in one search.
   */
  raise(hash: number, count: number): number {
    const slot = this.find(hash);
    if (slot < 0) {
      this.add(hash, count);
      return 0;
    }
    const counted = this.slots[slot + 1]!;
    if (count > counted) this.slots[slot + 1] = count;
    return counted;
  }

  private add(hash: number, count: number): void {
    const { slots } = this;
    if (slots.length < NAMES_KEPT * 2) {
      slots.push(hash, count);
      return;
    }
    slots[this.next] = hash;
    slots[this.next + 1] = count;
    this.next = (this.next + 2) % (NAMES_KEPT * 2);
  }

  private find(hash: number): number {
    const { slots } = this;
    for (let slot = 0; slot < slots.length; slot += 2) if (slots[slot] === hash) return slot;
    return -1;
  }
}
