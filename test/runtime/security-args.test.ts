// Golden argv of the effective securityContext per dialect, and where it sits in `create`.
import t from "tap";
import { buildCreateArgs } from "../../lib/runtime/create-args.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";
import { formatSecurityArgs } from "../../lib/runtime/security-args.js";
import { PodrunError } from "../../lib/errors.js";
import type { ContainerSpec } from "../../lib/runtime/types.js";

const { docker, podman, nerdctl } = DIALECTS;
const IMAGE = "127.0.0.1:5100/podrun-test/busybox:1.36";

t.test("user, group and supplemental groups", async (t) => {
  for (const dialect of [docker, podman, nerdctl]) {
    t.same(formatSecurityArgs(dialect, { user: 1000, group: 3000, supplementalGroups: [2000, 4000] }), [
      "--user",
      "1000:3000",
      "--group-add",
      "2000",
      "--group-add",
      "4000",
    ]);
    t.same(formatSecurityArgs(dialect, { user: 0 }), ["--user", "0"], "uid 0 is a value, not unset");
    t.same(formatSecurityArgs(dialect, { supplementalGroups: [2000] }), ["--group-add", "2000"]);
  }
  t.same(formatSecurityArgs(docker, undefined), []);
  t.same(formatSecurityArgs(docker, {}), []);
  t.same(formatSecurityArgs(docker, { runAsNonRoot: true }), [], "runAsNonRoot is a check, not a flag");
  let error: unknown;
  try {
    formatSecurityArgs(docker, { group: 3000 });
  } catch (caught) {
    error = caught;
  }
  t.ok(
    error instanceof PodrunError && error.reason === "CreateContainerError",
    "a gid without a uid: containerd's error",
  );
  t.match((error as Error).message, 'user group "3000" is specified without user');
});

t.test("read-only root: podman keeps no tmpfs of its own", async (t) => {
  t.same(formatSecurityArgs(docker, { readOnlyRootFilesystem: true }), ["--read-only"]);
  t.same(formatSecurityArgs(nerdctl, { readOnlyRootFilesystem: true }), ["--read-only"]);
  t.same(formatSecurityArgs(podman, { readOnlyRootFilesystem: true }), ["--read-only", "--read-only-tmpfs=false"]);
});

t.test("capabilities, privileged, no-new-privileges", async (t) => {
  for (const dialect of [docker, podman, nerdctl]) {
    t.same(formatSecurityArgs(dialect, { capDrop: ["ALL"], capAdd: ["NET_ADMIN", "CHOWN"] }), [
      "--cap-drop",
      "ALL",
      "--cap-add",
      "NET_ADMIN",
      "--cap-add",
      "CHOWN",
    ]);
    t.same(formatSecurityArgs(dialect, { privileged: true }), ["--privileged"]);
    t.same(formatSecurityArgs(dialect, { noNewPrivileges: true }), ["--security-opt", "no-new-privileges"]);
  }
});

t.test("buildCreateArgs: security after the mounts, before --pull", async (t) => {
  const spec: ContainerSpec = {
    name: "web-app",
    image: IMAGE,
    labels: {},
    sandbox: "web",
    hostNetwork: false,
    restartPolicy: "no",
    security: {
      user: 1000,
      group: 3000,
      supplementalGroups: [2000],
      readOnlyRootFilesystem: true,
      capDrop: ["ALL"],
      capAdd: ["NET_ADMIN"],
      noNewPrivileges: true,
    },
  };
  const env = { byName: [], childEnv: {} };
  t.same(buildCreateArgs(docker, spec, env), [
    "create",
    "--name",
    "web-app",
    "--network",
    "container:web_POD",
    "--ipc",
    "container:web_POD",
    "--restart",
    "no",
    "--user",
    "1000:3000",
    "--group-add",
    "2000",
    "--read-only",
    "--cap-drop",
    "ALL",
    "--cap-add",
    "NET_ADMIN",
    "--security-opt",
    "no-new-privileges",
    "--pull",
    "never",
    IMAGE,
  ]);
  t.same(buildCreateArgs(podman, spec, env), [
    "create",
    "--name",
    "web-app",
    "--pod",
    "web",
    "--restart",
    "no",
    "--user",
    "1000:3000",
    "--group-add",
    "2000",
    "--read-only",
    "--read-only-tmpfs=false",
    "--cap-drop",
    "ALL",
    "--cap-add",
    "NET_ADMIN",
    "--security-opt",
    "no-new-privileges",
    "--pull",
    "never",
    IMAGE,
  ]);
});

t.test("seccomp: unconfined or a profile file, the same spelling on every engine", async (t) => {
  for (const dialect of [docker, podman, nerdctl]) {
    t.same(formatSecurityArgs(dialect, { seccomp: "unconfined" }), ["--security-opt", "seccomp=unconfined"]);
    t.same(formatSecurityArgs(dialect, { seccomp: "/var/lib/kubelet/seccomp/profiles/audit.json" }), [
      "--security-opt",
      "seccomp=/var/lib/kubelet/seccomp/profiles/audit.json",
    ]);
    t.same(formatSecurityArgs(dialect, { noNewPrivileges: true, seccomp: "unconfined" }), [
      "--security-opt",
      "no-new-privileges",
      "--security-opt",
      "seccomp=unconfined",
    ]);
  }
});
