// The highest count seen of each of a row's most recent event names (fold.ts): a ring of a
// fixed size, so a row that lives through millions of lines never grows. Names are compared by a
// 32-bit hash first: names of one pod share a long prefix (`web.18eb7945…`, the time in hex), and
// comparing them as strings from the start made this search the costliest step of the fold; a
// Map instead kept rehashing itself as the oldest name was deleted and a new one added.

/** Names remembered per row: more than the runs of one pod that could overlap in time. */
export const NAMES_KEPT = 16;

export class NameCounts {
  private readonly names: string[] = [];
  private readonly hashes: number[] = [];
  private readonly counts: number[] = [];
  private next = 0;

  get size(): number {
    return this.names.length;
  }

  /** The count already counted for `name` (0 for a name not seen, or forgotten). */
  countedFor(name: string, hash = hashName(name)): number {
    const slot = this.find(name, hash);
    return slot < 0 ? 0 : this.counts[slot]!;
  }

  /**
   * Records `count` as counted for `name`, forgetting the oldest name if the ring is full.
   * Returns the name as kept (a copy of its own, see copyString).
   */
  remember(name: string, count: number, hash = hashName(name)): string {
    const slot = this.find(name, hash);
    if (slot >= 0) {
      this.counts[slot] = count;
      return this.names[slot]!;
    }
    const at = this.next;
    const kept = copyString(name);
    this.names[at] = kept;
    this.hashes[at] = hash;
    this.counts[at] = count;
    this.next = (at + 1) % NAMES_KEPT;
    return kept;
  }

  /** The names, oldest first, with their counts: to carry a row between threads (fold-state.ts). */
  entries(): [name: string, count: number][] {
    const size = this.names.length;
    const start = size < NAMES_KEPT ? 0 : this.next;
    return Array.from({ length: size }, (_, i) => {
      const slot = (start + i) % size;
      return [this.names[slot]!, this.counts[slot]!];
    });
  }

  private find(name: string, hash: number): number {
    for (let slot = 0; slot < this.hashes.length; slot++) {
      if (this.hashes[slot] === hash && this.names[slot] === name) return slot;
    }
    return -1;
  }
}

/** FNV-1a over the UTF-16 code units. */
export function hashName(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return hash;
}

/**
 * A copy of `text` that does not share memory with a longer string. Strings picked out of a line
 * by a regular expression are views into the line, and a view held by a long-lived row would
 * hold the whole line; concatenating then slicing makes V8 copy just these characters.
 */
export function copyString(text: string): string {
  return ` ${text}`.slice(1);
}
