import type { Pod, Service } from "kubernetes-types/core/v1.js";
import { inRunOrder, kindEntry, KINDS } from "../kinds/table.js";
import type { KindTable } from "../kinds/types.js";
import type { ManifestItem } from "../manifest/kind-hooks.js";
import type { Workload } from "../workloads/expand.js";

// What `up` and `down` do with the objects of the manifests, decided by the kind table alone
// (pure): which pods run, in which order, which objects own pods, which are the Job controller's.

/** One pod `up` brings up: a bare pod of the files, or one of a workload's. */
export interface PodRun {
  pod: Pod;
  source: string;
  /** The object whose controller makes the pod (`deployment/web`); none for a bare pod. */
  owner?: ManifestItem;
}

export interface ObjectPlan {
  /** Every pod started one after the other, in the table's order (bare pods, then the workloads'). */
  runs: PodRun[];
  /** The objects whose pods carry the owner label: their pods are found (and deleted) by it. */
  owners: ManifestItem[];
  /** The owners whose pods `up` starts itself: the pods their new spec no longer names go first (stale-pods.ts). */
  controllers: ManifestItem[];
  /** The Jobs, run by the Job controller after every pod. */
  jobs: { workload: Workload; source: string }[];
  /** The Services, made before every pod (lib/services/). */
  services: { service: Service; source: string }[];
  /** The bare pods, each with its file. */
  pods: { pod: Pod; source: string }[];
  /** Whether anything runs: false when the files hold only ConfigMaps, Secrets or claims. */
  runsAnything: boolean;
}

export function planObjects(items: readonly ManifestItem[], table: KindTable = KINDS): ObjectPlan {
  const plan: ObjectPlan = {
    runs: [],
    owners: [],
    controllers: [],
    jobs: [],
    services: [],
    pods: [],
    runsAnything: false,
  };
  for (const item of inRunOrder(items, table)) {
    const entry = kindEntry(table, item.kind);
    if (entry.run === "none") continue;
    plan.runsAnything = true;
    if (entry.ownsPods) plan.owners.push(item);
    if (entry.run === "service") {
      plan.services.push({ service: item.object, source: item.source });
      continue;
    }
    if (entry.run === "job") {
      plan.jobs.push({ workload: item.workload!, source: item.source });
      continue;
    }
    if (entry.ownsPods) plan.controllers.push(item);
    const owner = entry.ownsPods ? { owner: item } : {};
    for (const pod of item.pods) plan.runs.push({ pod, source: item.source, ...owner });
    if (!entry.ownsPods) plan.pods.push(...item.pods.map((pod) => ({ pod, source: item.source })));
  }
  return plan;
}
