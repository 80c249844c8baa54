// The Linux security modules' options of one container: appArmorProfile and seLinuxOptions
// (container value over pod value) and procMount, as the kubelet hands them to the runtime
// (pkg/kubelet/kuberuntime/security_context_others.go, helpers.go). What the host or the engine
// cannot do is named in a Warning (lib/kinds/support/security-warnings.ts).
import { existsSync, readFileSync } from "node:fs";
import type { AppArmorProfile, Container, Pod, SELinuxOptions } from "kubernetes-types/core/v1.js";
import type { SecurityArgs } from "../../runtime/specs.js";
import { APPARMOR_ANNOTATION_PREFIX } from "../../manifest/rules/security-options.js";

export { APPARMOR_ANNOTATION_PREFIX };

/** Which Linux security modules the host enforces. */
export interface HostSecurityModules {
  appArmor: boolean;
  seLinux: boolean;
}

/**
 * AppArmor as runc's IsEnabled (which the kubelet's validator calls) reads it: the securityfs
 * directory and the module's `enabled` parameter; SELinux as an enforcing or permissive selinuxfs.
 */
export function detectHostSecurityModules(): HostSecurityModules {
  return {
    appArmor:
      existsSync("/sys/kernel/security/apparmor") &&
      readParameter("/sys/module/apparmor/parameters/enabled").startsWith("Y"),
    seLinux: existsSync("/sys/fs/selinux/enforce"),
  };
}

function readParameter(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    // No such parameter: the module is not loaded, so its feature is off.
    return "";
  }
}

let hostModules: HostSecurityModules | undefined;

/** detectHostSecurityModules, read once per process. */
export function hostSecurityModules(): HostSecurityModules {
  return (hostModules ??= detectHostSecurityModules());
}

/**
 * The kubelet's GetProfile (pkg/security/apparmor/helpers.go): the container's field, then the
 * pod's annotation for that container (`runtime/default`, `unconfined`, `localhost/<name>`),
 * then the pod's field.
 */
export function resolveAppArmorProfile(pod: Pod, container: Container): AppArmorProfile | undefined {
  const own = container.securityContext?.appArmorProfile;
  if (own) return own;
  const annotation = pod.metadata?.annotations?.[`${APPARMOR_ANNOTATION_PREFIX}${container.name}`];
  if (annotation !== undefined) return parseAppArmorAnnotation(annotation);
  return pod.spec?.securityContext?.appArmorProfile;
}

export function parseAppArmorAnnotation(value: string): AppArmorProfile | undefined {
  if (value === "runtime/default") return { type: "RuntimeDefault" };
  if (value === "unconfined") return { type: "Unconfined" };
  if (value.startsWith("localhost/")) return { type: "Localhost", localhostProfile: value.slice("localhost/".length) };
  return undefined;
}

/**
 * The `apparmor=` value: `unconfined`, or a Localhost profile's name where the host has AppArmor.
 * RuntimeDefault gives none (the engine's own default profile applies where AppArmor is on); a
 * kubelet refuses a confined pod on a host without AppArmor, podrun runs it unconfined and warns.
 */
export function appArmorOption(profile: AppArmorProfile | undefined, modules: HostSecurityModules): string | undefined {
  if (profile?.type === "Unconfined") return "unconfined";
  if (profile?.type === "Localhost" && modules.appArmor && profile.localhostProfile?.trim())
    return profile.localhostProfile;
  return undefined;
}

/** seLinuxOptions as `label=` parts, in the engines' order; empty parts are left to the engine. */
export function seLinuxLabelParts(options: SELinuxOptions | undefined): string[] | undefined {
  if (!options) return undefined;
  const parts = (["user", "role", "type", "level"] as const)
    .filter((key) => options[key])
    .map((key) => `${key}:${options[key]}`);
  return parts.length > 0 ? parts : undefined;
}

/** The container's LSM and /proc options, or undefined when it sets none (its argv and hash unchanged). */
export function planSecurityOptions(
  pod: Pod,
  container: Container,
  modules: HostSecurityModules = hostSecurityModules(),
): SecurityArgs | undefined {
  const own = container.securityContext ?? {};
  const podContext = pod.spec?.securityContext ?? {};
  const options: SecurityArgs = {
    appArmor: appArmorOption(resolveAppArmorProfile(pod, container), modules),
    // The kubelet's DetermineEffectiveSecurityContext takes the container's seLinuxOptions whole.
    seLinux: seLinuxLabelParts(own.seLinuxOptions ?? podContext.seLinuxOptions),
    unmaskedProc: own.procMount === "Unmasked" || undefined,
  };
  return Object.values(options).some((value) => value !== undefined) ? options : undefined;
}
