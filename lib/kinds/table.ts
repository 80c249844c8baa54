import { NOT_RUN_KINDS } from "../manifest/kinds.js";
import { CONFIG_MAP_KIND, PERSISTENT_VOLUME_CLAIM_KIND, SECRET_KIND } from "./config-objects.js";
import { POD_KIND } from "./pod.js";
import { SERVICE_KIND } from "./service.js";
import type { KindEntry, KindTable } from "./types.js";
import { DAEMON_SET_KIND, DEPLOYMENT_KIND, JOB_KIND, REPLICA_SET_KIND, STATEFUL_SET_KIND } from "./workloads.js";

// The one table of the kinds podrun reads. Adding a kind is an entry here and the kind's own
// module (types.ts says what an entry gives); the reader, `up`, `down`, `ps` and `validate` reach it
// through this table alone. The apiVersions are lib/manifest/kinds.ts's, which the generated
// schema (scripts/gen-schema.ts) is made from.

/** Listed as messages name them ("supported values: Pod, ConfigMap, …"); the run order is each entry's `order`. */
export const KINDS: KindTable = {
  kinds: [
    POD_KIND,
    CONFIG_MAP_KIND,
    SECRET_KIND,
    PERSISTENT_VOLUME_CLAIM_KIND,
    SERVICE_KIND,
    DEPLOYMENT_KIND,
    REPLICA_SET_KIND,
    STATEFUL_SET_KIND,
    DAEMON_SET_KIND,
    JOB_KIND,
  ],
  warned: NOT_RUN_KINDS,
};

/** The entry of `kind`; a kind the table lacks is a bug (the reader admits none). */
export function kindEntry(table: KindTable, kind: string): KindEntry {
  const entry = table.kinds.find((k) => k.kind === kind);
  if (!entry) throw new Error(`kind ${kind} is not in the kind table`);
  return entry;
}

/** Items (of one file, or of the set) in the order of a run: by their kind's `order`, then as read. */
export function inRunOrder<T extends { kind: string }>(items: readonly T[], table: KindTable = KINDS): T[] {
  const order = (item: T) => kindEntry(table, item.kind).order;
  return items
    .map((item, at) => ({ item, at }))
    .sort((a, b) => order(a.item) - order(b.item) || a.at - b.at)
    .map(({ item }) => item);
}
