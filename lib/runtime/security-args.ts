// Pure argv for a container's effective security context (lib/pod/spec/security-context.ts
// merges the pod's and the container's). Nothing here runs a process.
import { PodrunError } from "../errors.js";
import type { Dialect } from "./dialects.js";
import type { SecurityArgs } from "./specs.js";

/**
 * `--user`, `--group-add`, `--read-only`, `--cap-drop`/`--cap-add`, `--privileged` and
 * `--security-opt no-new-privileges`: the same spelling on docker 20.10, podman 4.3 and nerdctl.
 * The bare `no-new-privileges` because nerdctl splits options at `=` only (`:true` would be an
 * unknown option there); capability names go bare and upper case, which all three accept and
 * nerdctl needs for `ALL` (pkg/cmd/container/run_security_linux.go generateCapOpts).
 */
export function formatSecurityArgs(dialect: Dialect, security: SecurityArgs | undefined): string[] {
  if (!security) return [];
  const args: string[] = [];
  if (security.user !== undefined)
    args.push("--user", security.group !== undefined ? `${security.user}:${security.group}` : String(security.user));
  else if (security.group !== undefined) {
    // containerd refuses it too (generateUserString), and the CLIs cannot pair a gid with the
    // image's user.
    throw new PodrunError("CreateContainerError", `user group "${security.group}" is specified without user`);
  }
  for (const gid of security.supplementalGroups ?? []) args.push("--group-add", String(gid));
  if (security.readOnlyRootFilesystem) {
    args.push("--read-only");
    // podman mounts tmpfs on /tmp, /var/tmp and /run of a read-only container unless told not
    // to; a kubelet leaves them read-only, as the rest of the image.
    if (dialect.name === "podman") args.push("--read-only-tmpfs=false");
  }
  // Drops first, as the engines read them: `ALL` dropped then some added keeps just those.
  for (const cap of security.capDrop ?? []) args.push("--cap-drop", cap);
  for (const cap of security.capAdd ?? []) args.push("--cap-add", cap);
  if (security.privileged) args.push("--privileged");
  if (security.noNewPrivileges) args.push("--security-opt", "no-new-privileges");
  // `seccomp=unconfined` or `seccomp=<file>`: the same spelling on all three engines.
  if (security.seccomp !== undefined) args.push("--security-opt", `seccomp=${security.seccomp}`);
  args.push(...formatSecurityOptionArgs(dialect, security));
  return args;
}

/**
 * `apparmor=`, `label=` and `systempaths=unconfined`: docker and podman spell them alike. nerdctl
 * knows `apparmor=` but warns of and drops `label=` and `systempaths=` (its generateSecurityOpts),
 * so they are left out there and named in a Warning (lib/kinds/support/security-warnings.ts).
 */
function formatSecurityOptionArgs(dialect: Dialect, security: SecurityArgs): string[] {
  const args: string[] = [];
  if (security.appArmor !== undefined) args.push("--security-opt", `apparmor=${security.appArmor}`);
  if (dialect.name === "nerdctl") return args;
  for (const part of security.seLinux ?? []) args.push("--security-opt", `label=${part}`);
  // Empty masked and read-only path lists, as a CRI runtime makes them for Unmasked.
  if (security.unmaskedProc) args.push("--security-opt", "systempaths=unconfined");
  return args;
}
