/** `1 container`, `2 containers`: a count with its noun (nouns that take an `s`). */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
