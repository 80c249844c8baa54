// The effective security context of one container: the kubelet's
// DetermineEffectiveSecurityContext (pkg/securitycontext/util.go), where a container's value wins
// over the pod's, and the supplemental groups of pkg/kubelet/kuberuntime/security_context.go
// (fsGroup first, then supplementalGroups), which only the pod sets.
import type { Capabilities, Container, PodSpec } from "kubernetes-types/core/v1.js";
import type { SecurityArgs } from "../../runtime/security-args.js";

/** The container's security settings that podrun acts on, or undefined when none is set. */
export function planSecurityContext(spec: PodSpec, container: Container): SecurityArgs | undefined {
  const pod = spec.securityContext ?? {};
  const own = container.securityContext ?? {};
  const groups = [...(pod.fsGroup !== undefined ? [pod.fsGroup] : []), ...(pod.supplementalGroups ?? [])];
  const security: SecurityArgs = {
    user: own.runAsUser ?? pod.runAsUser,
    group: own.runAsGroup ?? pod.runAsGroup,
    supplementalGroups: groups.length > 0 ? groups : undefined,
    readOnlyRootFilesystem: own.readOnlyRootFilesystem || undefined,
    capAdd: normaliseCapabilities(own.capabilities, "add"),
    capDrop: normaliseCapabilities(own.capabilities, "drop"),
    privileged: own.privileged || undefined,
    // The kubelet's AddNoNewPrivileges: only an explicit false sets it.
    noNewPrivileges: own.allowPrivilegeEscalation === false || undefined,
  };
  return Object.values(security).some((value) => value !== undefined) ? security : undefined;
}

// The CRI runtimes prefix `CAP_` and upper-case each name; docker and podman accept either form,
// so the bare upper-case name goes to every engine (`ALL` stays as it is).
function normaliseCapabilities(capabilities: Capabilities | undefined, which: "add" | "drop"): string[] | undefined {
  const names = capabilities?.[which];
  if (!names || names.length === 0) return undefined;
  return names.map((name) => name.toUpperCase().replace(/^CAP_/, ""));
}
