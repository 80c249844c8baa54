// Typed reads of the raw decoded YAML. The structural checker reports values of the wrong JSON
// type; the semantic rules read through these and skip such values silently, so they never throw.
// `null` reads as absent, as Go's decoder leaves a pointer or slice nil for `field: null`.

export type RawObject = Record<string, unknown>;

export function asObject(value: unknown): RawObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as RawObject) : undefined;
}

export function asArray(value: unknown): readonly unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function asInteger(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) ? value : undefined;
}

/** Set to anything but null: a field whose presence counts (one-of choices, forbidden fields). */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Absent, null or "": what Go sees as an empty string, for Required checks of string fields. */
export function isBlank(value: unknown): boolean {
  return !isSet(value) || value === "";
}

/** The entries of a list of objects with their index; elements that are not objects are skipped. */
export function listObjectItems(value: unknown): [number, RawObject][] {
  const items: [number, RawObject][] = [];
  asArray(value)?.forEach((item, i) => {
    const object = asObject(item);
    if (object) items.push([i, object]);
  });
  return items;
}

/** Go's len() of a string: its UTF-8 byte length. */
export function countBytes(value: string): number {
  return Buffer.byteLength(value, "utf8");
}
