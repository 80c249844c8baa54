import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { initContainerKind } from "../spec/container-spec.js";
import type { PodPlan } from "../reconcile/reconcile-plan.js";

// What startPod does, decided before it does anything (pure): the kubelet's computePodActions
// says what SyncPod's steps do, and SyncPod itself decides nothing again. A new pod makes its
// sandbox, volumes and pod directory and runs its init containers; a kept pod (reconcile-plan.ts)
// has all of those already, and only the app containers the reconcile plan names are made.

/** A pod that is kept: its sandbox runs, its volumes exist and its init containers completed. */
export interface KeptPod {
  /** The running sandbox's infra container. */
  sandboxId?: string | undefined;
  /** The app containers to make in it (recreated or new), by name. */
  create: readonly string[];
}

export interface StartPlan {
  /** create: a new sandbox; keep: the running one (with its ID); none: the host's network, no sandbox. */
  sandbox: { action: "create" } | { action: "keep"; id?: string | undefined } | { action: "none" };
  /** create: the emptyDir volumes and the pod directory are this run's; keep: a kept pod's, in use by its containers. */
  volumes: "create" | "keep";
  /** Init containers and sidecars in manifest order, one at a time; none for a kept pod (they completed). */
  initContainers: InitStep[];
  /** App containers, started concurrently. */
  appContainers: Container[];
  /** Containers a liveness failure may make anew (sidecars and app containers). */
  restartable: Container[];
  /** False in a dry run (or when asked): an httpGet or sleep hook, and a sidecar's startup probe, are actions. */
  runHooks: boolean;
  /** Plan only: nothing is written to disk, no hostPath made. */
  dryRun: boolean;
  hostNetwork: boolean;
  /** The pod's own line in /etc/hosts, once the sandbox has its IP: a sandbox of its own, and a real run. */
  completeHostsFile: boolean;
}

/** One init container: run to a zero exit, or (a sidecar) started and left running. */
export interface InitStep {
  container: Container;
  kind: "init" | "sidecar";
  /** A sidecar with a startup probe: the next init container waits until it has started. */
  waitForStartup: boolean;
}

/** The start plan of a pod: new unless `kept`. */
export function planStart(options: {
  pod: Pod;
  kept?: KeptPod | undefined;
  dryRun?: boolean;
  runHooks?: boolean;
}): StartPlan {
  const { kept } = options;
  const spec = options.pod.spec!;
  const hostNetwork = spec.hostNetwork === true;
  const dryRun = options.dryRun === true;
  const runHooks = options.runHooks !== false;
  const initContainers = kept
    ? []
    : (spec.initContainers ?? []).map((container): InitStep => {
        const kind = initContainerKind(container);
        return { container, kind, waitForStartup: kind === "sidecar" && !!container.startupProbe && runHooks };
      });
  const sandbox: StartPlan["sandbox"] = hostNetwork
    ? { action: "none" }
    : kept
      ? { action: "keep", id: kept.sandboxId }
      : { action: "create" };
  return {
    sandbox,
    volumes: kept ? "keep" : "create",
    initContainers,
    appContainers: kept ? spec.containers.filter((c) => kept.create.includes(c.name)) : spec.containers,
    restartable: [...(spec.initContainers ?? []).filter((c) => initContainerKind(c) === "sidecar"), ...spec.containers],
    runHooks,
    dryRun,
    hostNetwork,
    completeHostsFile: !hostNetwork && !dryRun,
  };
}

/** The reconcile plan's part for the start: a kept pod makes what changed or is new, in its sandbox. */
export function keptPodOf(plan: PodPlan | undefined, sandboxId: string | undefined): KeptPod | undefined {
  return plan?.action === "keep" ? { sandboxId, create: [...plan.recreate, ...plan.create] } : undefined;
}
