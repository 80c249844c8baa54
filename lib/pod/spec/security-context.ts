// The effective security context of one container: the kubelet's
// DetermineEffectiveSecurityContext (pkg/securitycontext/util.go), where a container's value wins
// over the pod's, and the supplemental groups of pkg/kubelet/kuberuntime/security_context.go
// (fsGroup first, then supplementalGroups), which only the pod sets.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Capabilities, Container, PodSpec, SeccompProfile } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../errors.js";
import type { SecurityArgs } from "../../runtime/specs.js";
import type { PodIdentity } from "../identity.js";

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
    runAsNonRoot: (own.runAsNonRoot ?? pod.runAsNonRoot) || undefined,
    seccomp: resolveSeccompProfile(
      own.seccompProfile ?? pod.seccompProfile,
      process.env.PODRUN_SECCOMP_PROFILE_ROOT || DEFAULT_SECCOMP_PROFILE_ROOT,
    ),
  };
  return Object.values(security).some((value) => value !== undefined) ? security : undefined;
}

/** The kubelet's own `<root-dir>/seccomp`, where a Localhost profile is looked for by default. */
export const DEFAULT_SECCOMP_PROFILE_ROOT = "/var/lib/kubelet/seccomp";

/**
 * The `--security-opt seccomp=` value for a profile, as the kubelet's getSeccompProfile
 * (pkg/kubelet/kuberuntime/helpers.go): Unconfined → `unconfined`, Localhost → the file under the
 * profiles root, RuntimeDefault → undefined (the engine's default profile applies anyway). A
 * Localhost file that is not there fails before anything is created, where a node's runtime
 * would fail the container's creation.
 */
export function resolveSeccompProfile(profile: SeccompProfile | undefined, root: string): string | undefined {
  if (profile?.type === "Unconfined") return "unconfined";
  if (profile?.type !== "Localhost") return undefined;
  if (!profile.localhostProfile)
    throw new PodrunError(
      "CreateContainerConfigError",
      "localhostProfile must be set if seccompProfile type is Localhost.",
    );
  const file = join(root, profile.localhostProfile);
  if (!existsSync(file)) {
    throw new PodrunError(
      "CreateContainerConfigError",
      `seccomp profile ${JSON.stringify(profile.localhostProfile)} not found: no file ${file} (the profiles directory is $PODRUN_SECCOMP_PROFILE_ROOT, else ${DEFAULT_SECCOMP_PROFILE_ROOT})`,
    );
  }
  return file;
}

// The CRI runtimes prefix `CAP_` and upper-case each name; docker and podman accept either form,
// so the bare upper-case name goes to every engine (`ALL` stays as it is).
function normaliseCapabilities(capabilities: Capabilities | undefined, which: "add" | "drop"): string[] | undefined {
  const names = capabilities?.[which];
  if (!names || names.length === 0) return undefined;
  return names.map((name) => name.toUpperCase().replace(/^CAP_/, ""));
}

/**
 * Whether the runAsNonRoot check needs the image's USER: runAsNonRoot is true in effect and no
 * runAsUser (container or pod) says who runs.
 */
export function needsImageUser(spec: PodSpec, container: Container): boolean {
  const own = container.securityContext ?? {};
  const pod = spec.securityContext ?? {};
  return (own.runAsNonRoot ?? pod.runAsNonRoot) === true && (own.runAsUser ?? pod.runAsUser) === undefined;
}

const MAX_USER_ID = 2147483647;

/**
 * The kubelet's verifyRunAsNonRoot (pkg/kubelet/kuberuntime/security_context_others.go), with the
 * image user read as containerd's getUserFromImage does (the part before `:`; a number is a uid,
 * anything else a name; none is root). Throws CreateContainerConfigError with the kubelet's text.
 */
export function verifyRunAsNonRoot(options: {
  spec: PodSpec;
  container: Container;
  identity: PodIdentity;
  imageUser: string | undefined;
}): void {
  const { spec, container, identity } = options;
  const own = container.securityContext ?? {};
  const pod = spec.securityContext ?? {};
  if ((own.runAsNonRoot ?? pod.runAsNonRoot) !== true) return;
  // format.Pod: name_namespace(uid), quoted by %q.
  const where = `(pod: ${JSON.stringify(`${identity.name}_${identity.namespace}(${identity.uid})`)}, container: ${container.name})`;
  const fail = (message: string): never => {
    throw new PodrunError("CreateContainerConfigError", `${message} ${where}`);
  };
  const runAsUser = own.runAsUser ?? pod.runAsUser;
  if (runAsUser !== undefined) {
    if (runAsUser === 0) fail("container's runAsUser breaks non-root policy");
    return;
  }
  const user = (options.imageUser ?? "").split(":")[0] ?? "";
  if (user === "") fail("container has runAsNonRoot and image will run as root");
  if (!/^-?\d+$/.test(user))
    fail(`container has runAsNonRoot and image has non-numeric user (${user}), cannot verify user is non-root`);
  const uid = Number(user);
  if (uid === 0) fail("container has runAsNonRoot and image will run as root");
  if (uid < 0 || uid > MAX_USER_ID) {
    fail(
      `container has runAsNonRoot and image has an invalid user id (${user}). (Must be 1-(${MAX_USER_ID})): must be between 0 and ${MAX_USER_ID}, inclusive`,
    );
  }
}
