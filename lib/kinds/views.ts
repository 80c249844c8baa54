import type { Pod } from "kubernetes-types/core/v1.js";
import type { ManifestItem } from "../manifest/kind-hooks.js";
import type { Workload } from "../workloads/expand.js";
import { kindEntry, KINDS } from "./table.js";
import type { KindTable } from "./types.js";

// Views of a Manifest (or of one of its files) by kind, for callers that want one group: the bare
// pods, the workloads, the objects of one kind.

type Items = { items: readonly ManifestItem[] };

/** The bare pods (objects that are their own pod), in file and document order. */
export function podsOf(manifest: Items, table: KindTable = KINDS): Pod[] {
  return manifest.items.filter((item) => !kindEntry(table, item.kind).ownsPods).flatMap((item) => item.pods);
}

/** The file each bare pod came from. */
export function podSourcesOf(manifest: Items, table: KindTable = KINDS): Map<Pod, string> {
  return new Map(
    manifest.items
      .filter((item) => !kindEntry(table, item.kind).ownsPods)
      .flatMap((item) => item.pods.map((pod) => [pod, item.source] as const)),
  );
}

/** The workloads' expansions (lib/workloads/expand.ts), in file and document order. */
export function workloadsOf(manifest: Items): Workload[] {
  return manifest.items.flatMap((item) => (item.workload ? [item.workload] : []));
}

/** The objects of one kind, as admitted (defaults applied). */
export function objectsOf<T = Record<string, unknown>>(manifest: Items, kind: string): T[] {
  return manifest.items.filter((item) => item.kind === kind).map((item) => item.object as T);
}
