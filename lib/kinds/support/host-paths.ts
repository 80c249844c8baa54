import { FieldPath } from "../../manifest/field-path.js";
import type { Reporter } from "../../manifest/field-error.js";
import { asArray, asObject, asString } from "../../manifest/rules/raw.js";
import { checkHostPathNow } from "../../pod/volumes/host-path.js";

/**
 * A hostPath volume whose type the kubelet would refuse at the mount on this machine (a
 * `Directory` that is not there, a `Socket` that is a file): an API server accepts the pod, and
 * the node fails its volume with FailedMount. Reported as the kubelet's error (FieldError.kubelet)
 * on `hostPath.path`, so that `validate` warns and `up` refuses it before creating anything. The
 * path is this machine's: an engine on another host has its own (docs/runtimes.md).
 */
export function findHostPathFailures(pod: unknown, report: Reporter): void {
  (asArray(asObject(asObject(pod)?.spec)?.volumes) ?? []).forEach((volume, index) => {
    const name = asString(asObject(volume)?.name) ?? "";
    const hostPath = asObject(asObject(volume)?.hostPath);
    const path = asString(hostPath?.path);
    if (!path) return;
    const failure = checkHostPathNow(path, asString(hostPath?.type));
    if (failure === undefined) return;
    report({
      type: "Invalid",
      path: FieldPath.root().child("spec").child("volumes").index(index).child("hostPath").child("path"),
      value: path,
      detail: `MountVolume.SetUp failed for volume ${JSON.stringify(name)} : ${failure}`,
      kubelet: "FailedMount",
    });
  });
}
