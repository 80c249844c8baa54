// The highest count seen of each of a row's most recent event names (fold.ts): a ring of a
// fixed size, so a row that lives through millions of lines never grows. Names are kept as a
// 53-bit hash, not as strings: on 100,000 lines, copying each new name out of its line (so that
// a row would not hold the line) cost more than the rest of the bookkeeping. Two names of one
// row that collide in 53 bits would count as one; with 16 names a row that is ~2^-49 per line.

/** Names remembered per row: more than the runs of one pod that could overlap in time. */
export const NAMES_KEPT = 16;

export class NameCounts {
  private readonly hashes = new Float64Array(NAMES_KEPT);
  private readonly counts = new Float64Array(NAMES_KEPT);
  private used = 0;
  private next = 0;

  get size(): number {
    return this.used;
  }

  /** The count already counted for the name hashed `hash` (0 for a name not seen, or forgotten). */
  countedFor(hash: number): number {
    const slot = this.find(hash);
    return slot < 0 ? 0 : this.counts[slot]!;
  }

  /** Records `count` as counted for the name hashed `hash`, forgetting the oldest if the ring is full. */
  remember(hash: number, count: number): void {
    const slot = this.find(hash);
    if (slot >= 0) {
      this.counts[slot] = count;
      return;
    }
    this.hashes[this.next] = hash;
    this.counts[this.next] = count;
    this.next = (this.next + 1) % NAMES_KEPT;
    if (this.used < NAMES_KEPT) this.used++;
  }

  private find(hash: number): number {
    for (let slot = 0; slot < this.used; slot++) if (this.hashes[slot] === hash) return slot;
    return -1;
  }
}

/** FNV-1a over the UTF-16 code units, twice with different offsets, as one 53-bit number. */
export function hashName(name: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 0x200000 + (b >>> 11);
}

/**
 * A copy of `text` that does not share memory with a longer string. Strings picked out of a line
 * by a regular expression are views into the line, and a view held by a long-lived row would
 * hold the whole line; concatenating then slicing makes V8 copy just these characters.
 */
export function copyString(text: string): string {
  return ` ${text}`.slice(1);
}
