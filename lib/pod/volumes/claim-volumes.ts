import type { PersistentVolumeClaim, Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../errors.js";
import type { EventRecorder } from "../../events/recorder.js";
import { toInvolvedObject } from "../../events/types.js";
import { describeError } from "../../runtime/engine-error.js";
import { LABEL_MANAGED, LABEL_POD_NAMESPACE, type ContainerRuntime } from "../../runtime/types.js";
import type { PodIdentity } from "../identity.js";
import type { PodObjects } from "../../manifest/pod-objects.js";

// PersistentVolumeClaims: one engine volume per claim, named `<namespace>_<claim>` (a pod's
// emptyDir is `<namespace>_<pod>_<volume>`: names have no `_`, so the two never meet). A cluster
// binds a claim to a PersistentVolume that outlives every pod using it; here the claim's volume is
// made by the first `up` of a pod that mounts it, kept when it is there (its data survives `down`
// and the next `up`), shared by every pod mounting the claim, and removed only by
// `podrun down --volumes`. It carries podrun's marker, the namespace and the claim's name, never a
// pod's labels: `down` of a pod finds and removes that pod's volumes by those, and must not find
// this one. Size, storage class and access modes are not the engine's to enforce (local volumes
// have none): validation says so in Warnings (lib/manifest/rules/persistent-volume-claim.ts).
// A claim none of the manifests defines is the volume manager's answer on a node: the pod cannot
// mount it and waits, with a FailedMount event; `up` fails there, before anything is made.
// Upstream: the kubelet's desired_state_of_world_populator (getPVCExtractPV),
// https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/kubelet/volumemanager/populator/desired_state_of_world_populator.go

/** On a claim's engine volume: the claim's name (with LABEL_MANAGED and the namespace label). */
export const LABEL_CLAIM = "io.podrun.claim";

export function claimVolumeName(namespace: string, claim: string): string {
  return `${namespace}_${claim}`;
}

export function claimVolumeLabels(namespace: string, claim: string): Record<string, string> {
  return { [LABEL_MANAGED]: "true", [LABEL_POD_NAMESPACE]: namespace, [LABEL_CLAIM]: claim };
}

/** A claim of the manifests, or undefined. */
export function findClaim(
  claims: readonly PersistentVolumeClaim[] | undefined,
  namespace: string,
  name: string,
): PersistentVolumeClaim | undefined {
  return (claims ?? []).find(
    (claim) => claim.metadata?.name === name && (claim.metadata?.namespace || "default") === namespace,
  );
}

/**
 * Makes the engine volume of every claim the pod's volumes name, unless it is there already.
 * Throws PodrunError(FailedMount), after its event, when a claim is in none of the manifests:
 * checked for every claim before any volume is made.
 */
export async function ensureClaimVolumes(
  deps: { runtime: ContainerRuntime; recorder: Pick<EventRecorder, "event"> },
  options: { pod: Pod; identity: PodIdentity; objects: PodObjects; dryRun?: boolean },
): Promise<void> {
  const { pod, identity } = options;
  const namespace = identity.namespace;
  const volumes = (pod.spec?.volumes ?? []).filter((volume) => volume.persistentVolumeClaim !== undefined);
  if (volumes.length === 0) return;
  const failedMount = (volumeNames: string[], message: string) => {
    const text = `Unable to attach or mount volumes: unmounted volumes=[${volumeNames.join(" ")}]: ${message}`;
    deps.recorder.event(toInvolvedObject(identity), "Warning", "FailedMount", text);
    return text;
  };
  const failed = (volumeNames: string[], message: string, cause?: unknown): never => {
    throw new PodrunError(
      "FailedMount",
      failedMount(volumeNames, message),
      cause === undefined ? undefined : { cause },
    );
  };
  const isDefined = (claim: string) =>
    findClaim(options.objects.persistentVolumeClaims, namespace, claim) !== undefined;
  const missing = volumes.filter((volume) => !isDefined(volume.persistentVolumeClaim!.claimName));
  if (missing.length > 0) {
    const claim = missing[0]!.persistentVolumeClaim!.claimName;
    const message = `error processing PVC ${namespace}/${claim}: persistentvolumeclaim "${claim}" not found`;
    // A dry run plans the rest and ends as validation does (0 or 2): the event, and the Warning
    // validation gave at the claimName, say what `up` would meet.
    if (options.dryRun)
      failedMount(
        missing.map((volume) => volume.name),
        message,
      );
    else
      failed(
        missing.map((volume) => volume.name),
        message,
      );
  }
  // A dry run plans even a missing claim's volume: the plan shows the mounts as they would be.
  const claims = [...new Set(volumes.map((volume) => volume.persistentVolumeClaim!.claimName))].filter(
    (claim) => options.dryRun === true || isDefined(claim),
  );
  if (claims.length === 0) return;
  const present = async () =>
    new Set(
      (await deps.runtime.listVolumes({ [LABEL_MANAGED]: "true", [LABEL_POD_NAMESPACE]: namespace })).map(
        (volume) => volume.name,
      ),
    );
  const existing = await present().catch((error: unknown) =>
    failed(
      volumes.map((v) => v.name),
      describeError(error),
      error,
    ),
  );
  const fsGroup = pod.spec?.securityContext?.fsGroup;
  for (const claim of claims) {
    const name = claimVolumeName(namespace, claim);
    if (existing.has(name)) continue;
    await deps.runtime
      .createVolume(name, claimVolumeLabels(namespace, claim), fsGroup !== undefined ? { group: fsGroup } : undefined)
      .catch(async (error: unknown) => {
        // Another podrun may have made it meanwhile: that volume is the claim's all the same.
        if ((await present().catch(() => new Set<string>())).has(name)) return;
        const users = volumes.filter((v) => v.persistentVolumeClaim!.claimName === claim).map((v) => v.name);
        failed(users, `error processing PVC ${namespace}/${claim}: ${describeError(error)}`, error);
      });
  }
}

/** A claim's volume `down --volumes` could not remove (in use by a pod still running, say). */
export interface ClaimVolumeFailure {
  volume: string;
  message: string;
}

/**
 * `podrun down --volumes`: removes the engine volumes of `claims` (those of the manifests given),
 * or with `all` of every claim (of `namespace` when given). Only volumes carrying the claim labels
 * are touched. Each is removed on its own, so that one in use keeps only itself.
 */
export async function removeClaimVolumes(
  runtime: ContainerRuntime,
  options: { claims?: readonly { namespace: string; name: string }[]; all?: boolean; namespace?: string },
): Promise<{ removed: string[]; failures: ClaimVolumeFailure[] }> {
  const labels: Record<string, string> = {
    [LABEL_MANAGED]: "true",
    ...(options.namespace !== undefined ? { [LABEL_POD_NAMESPACE]: options.namespace } : {}),
  };
  const found = (await runtime.listVolumes(labels)).filter((volume) => volume.labels[LABEL_CLAIM] !== undefined);
  const wanted = options.all
    ? found
    : found.filter((volume) =>
        (options.claims ?? []).some(
          (claim) =>
            volume.name === claimVolumeName(claim.namespace, claim.name) && volume.labels[LABEL_CLAIM] === claim.name,
        ),
      );
  const removed: string[] = [];
  const failures: ClaimVolumeFailure[] = [];
  for (const volume of wanted) {
    try {
      await runtime.removeVolumes([volume.name]);
      removed.push(volume.name);
    } catch (error) {
      failures.push({ volume: volume.name, message: describeError(error) });
    }
  }
  return { removed, failures };
}
