import type { KindEntry, KindTable } from "./types.js";
import { KINDS } from "./table.js";

// The TYPE of `TYPE/NAME` arguments, as kubectl spells it (`deploy`, `deployments.apps`, `Job`),
// read from the kind table: every kind with `resource` names may be given so.

/** The kinds `TYPE/NAME` may name, in the table's order. */
export function namedKinds(table: KindTable = KINDS): (KindEntry & { resource: NonNullable<KindEntry["resource"]> })[] {
  return table.kinds.filter((k): k is KindEntry & { resource: NonNullable<KindEntry["resource"]> } => !!k.resource);
}

/** The commands that act on pods (their containers, their readiness): they take pods and workloads, not Services. */
export const POD_COMMANDS: ReadonlySet<string> = new Set(["logs", "exec", "wait"]);

/**
 * Whether `command` takes the kind as `TYPE/NAME`: every command takes pods and workloads; a
 * Service (no pods of its own) every one but those that act on pods alone (POD_COMMANDS).
 */
export function takesKind(entry: KindEntry, command: string): boolean {
  return entry.run !== "service" || !POD_COMMANDS.has(command);
}

/** What each kind `command` takes is written as, for usage lines: `pod (po), deployment (deploy), …, job`. */
export function acceptedTypes(table: KindTable = KINDS, command = ""): string {
  return namedKinds(table)
    .filter((entry) => takesKind(entry, command))
    .map(({ resource: r }) => (r.short ? `${r.singular} (${r.short})` : r.singular))
    .join(", ");
}

/** The entry `type` names, in any spelling kubectl accepts (plural, singular, short, kind; each with `.group`). */
export function entryOfType(type: string, table: KindTable = KINDS): KindEntry | undefined {
  const wanted = type.toLowerCase();
  return namedKinds(table).find(({ kind, resource: r }) => {
    const names = [r.plural, r.singular, kind.toLowerCase(), ...(r.short ? [r.short] : [])];
    return [...names, ...(r.group ? names.map((n) => `${n}.${r.group}`) : [])].includes(wanted);
  });
}

/** The entry of a kind the table names, if any. */
export function entryOfKind(kind: string, table: KindTable = KINDS): KindEntry | undefined {
  return table.kinds.find((k) => k.kind === kind);
}
