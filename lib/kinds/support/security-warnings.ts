import type { RuntimeName } from "../../runtime/detect.js";
import { normalizeSysctlName, safeSysctls } from "../../manifest/safe-sysctls.js";
import {
  APPARMOR_ANNOTATION_PREFIX,
  hostSecurityModules,
  parseAppArmorAnnotation,
  type HostSecurityModules,
} from "../../pod/spec/security-options.js";
import { FieldPath } from "../../manifest/field-path.js";
import type { FieldError } from "../../manifest/field-error.js";
import { asObject, asString, listObjectItems, type RawObject } from "../../manifest/rules/raw.js";

// What the security options of a pod (lib/pod/spec/security-options.ts, safe-sysctls.ts) cannot
// do here: on this host (no AppArmor, no SELinux), on any engine (supplementalGroupsPolicy
// Strict), or on one engine (hostUsers, and nerdctl's missing options). Read as written.

const specPath = FieldPath.root().child("spec");

export interface HostFacts {
  modules: HostSecurityModules;
  /** The kernel's release, for the safe sysctls that need a recent one. */
  kernel?: string;
}

/** Warnings that hold whatever the engine. */
export function findSecurityOptionWarnings(
  pod: unknown,
  report: (warning: FieldError) => void,
  host: HostFacts = { modules: hostSecurityModules() },
): void {
  const object = asObject(pod);
  const spec = asObject(object?.spec);
  if (!object || !spec) return;
  const context = asObject(spec.securityContext);
  const warn = (path: FieldPath, detail: string) => report({ type: "Forbidden", path, detail, atKey: true });

  // A hostNetwork pod's sysctls are not applied at all (support.ts says so).
  if (spec.hostNetwork !== true) {
    const safe = safeSysctls(host.kernel);
    for (const [i, sysctl] of listObjectItems(context?.sysctls)) {
      const name = asString(sysctl.name);
      if (!name || safe.has(normalizeSysctlName(name))) continue;
      warn(
        specPath.child("securityContext").child("sysctls").index(i),
        `${JSON.stringify(name)} is not in the kubelet's safe set: a default kubelet refuses the pod (SysctlForbidden) unless --allowed-unsafe-sysctls allows it; podrun sets it`,
      );
    }
  }
  if (context?.supplementalGroupsPolicy === "Strict") {
    warn(
      specPath.child("securityContext").child("supplementalGroupsPolicy"),
      "docker, podman and nerdctl always add the groups the image's /etc/group gives the user: Strict acts as Merge",
    );
  }

  const containers = [...listContainers(spec, "initContainers"), ...listContainers(spec, "containers")];
  if (!host.modules.appArmor) {
    const detail =
      "AppArmor is not enabled on this host: the container runs unconfined (a kubelet here refuses the pod: Cannot enforce AppArmor: AppArmor is not enabled on the host)";
    const confined = (profile: RawObject | undefined) => profile !== undefined && profile.type !== "Unconfined";
    if (confined(asObject(context?.appArmorProfile)))
      warn(specPath.child("securityContext").child("appArmorProfile"), detail);
    for (const { container, path } of containers) {
      if (confined(asObject(asObject(container.securityContext)?.appArmorProfile)))
        warn(path.child("securityContext").child("appArmorProfile"), detail);
    }
    for (const [key, value] of Object.entries(asObject(asObject(object.metadata)?.annotations) ?? {})) {
      if (!key.startsWith(APPARMOR_ANNOTATION_PREFIX) || typeof value !== "string") continue;
      const profile = parseAppArmorAnnotation(value);
      if (profile && profile.type !== "Unconfined")
        warn(FieldPath.root().child("metadata").child("annotations").key(key), detail);
    }
  }
  if (!host.modules.seLinux) {
    const detail =
      "SELinux is not enabled on this host: no label is applied (the engine ignores it, as a node's runtime does without SELinux)";
    if (asObject(context?.seLinuxOptions)) warn(specPath.child("securityContext").child("seLinuxOptions"), detail);
    for (const { container, path } of containers) {
      if (asObject(asObject(container.securityContext)?.seLinuxOptions))
        warn(path.child("securityContext").child("seLinuxOptions"), detail);
    }
  }
}

/** Warnings that hold on one engine only: `up` prints those of the engine it runs. */
export function findEngineSecurityWarnings(
  pod: unknown,
  report: (engine: RuntimeName, warning: FieldError) => void,
): void {
  const spec = asObject(asObject(pod)?.spec);
  if (!spec) return;
  const warn = (engine: RuntimeName, path: FieldPath, detail: string) =>
    report(engine, { type: "Forbidden", path, detail, atKey: true });
  if (spec.hostUsers === false) {
    const detail =
      "has no user namespace per container, only a daemon-wide remapping (userns-remap): the pod runs in the host's user namespace";
    warn("docker", specPath.child("hostUsers"), `docker ${detail}`);
    warn(
      "nerdctl",
      specPath.child("hostUsers"),
      "nerdctl is not given a user namespace per pod by podrun: the pod runs in the host's user namespace",
    );
  }
  const context = asObject(spec.securityContext);
  if (asObject(context?.seLinuxOptions))
    warn(
      "nerdctl",
      specPath.child("securityContext").child("seLinuxOptions"),
      "nerdctl has no SELinux label option: ignored",
    );
  for (const { container, path } of [
    ...listContainers(spec, "initContainers"),
    ...listContainers(spec, "containers"),
  ]) {
    const own = asObject(container.securityContext);
    if (asObject(own?.seLinuxOptions))
      warn(
        "nerdctl",
        path.child("securityContext").child("seLinuxOptions"),
        "nerdctl has no SELinux label option: ignored",
      );
    if (own?.procMount === "Unmasked")
      warn(
        "nerdctl",
        path.child("securityContext").child("procMount"),
        "nerdctl has no option to unmask /proc: its default masks stay",
      );
  }
}

function listContainers(
  spec: RawObject,
  list: "initContainers" | "containers",
): { container: RawObject; path: FieldPath }[] {
  return listObjectItems(spec[list]).map(([i, container]) => ({ container, path: specPath.child(list).index(i) }));
}
