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
  /**
   * The pod that must be up before this one starts (the one before it in a StatefulSet of
   * OrderedReady, or, in a dry run, the one before it in the plan); none: it starts at once.
   */
  after?: PodRun;
  /**
   * How many pods of the plan wait, one after the other, for this one to be up (a StatefulSet of
   * OrderedReady: n − 1 for its first pod of n, 0 for its last): the run starts it first, since
   * the run ends no sooner than the last of them.
   */
  waitedOnBy?: number;
}

export interface ObjectPlan {
  /** Every pod `up` starts, in the table's order (bare pods, then the workloads'): together, but for `after`. */
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

/**
 * The plan of a dry run: each pod after the one before it, so that the commands it prints come
 * pod by pod (nothing runs, so nothing is gained by starting them together).
 */
export function inSequence(plan: ObjectPlan): ObjectPlan {
  const runs: PodRun[] = [];
  for (const run of plan.runs) runs.push({ ...run, ...(runs.length > 0 && { after: runs.at(-1) }) });
  return { ...plan, runs };
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
    const inOrder = entry.startsInOrder?.(item) === true;
    let previous: PodRun | undefined;
    for (const [i, pod] of item.pods.entries()) {
      const chain = inOrder && item.pods.length - 1 - i > 0 ? { waitedOnBy: item.pods.length - 1 - i } : {};
      const run: PodRun = {
        pod,
        source: item.source,
        ...owner,
        ...(inOrder && previous && { after: previous }),
        ...chain,
      };
      plan.runs.push(run);
      previous = run;
    }
    if (!entry.ownsPods) plan.pods.push(...item.pods.map((pod) => ({ pod, source: item.source })));
  }
  return plan;
}
