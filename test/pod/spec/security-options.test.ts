// appArmorProfile, seLinuxOptions, procMount and hostUsers: resolution (container over pod, the
// deprecated annotation between them), argv goldens per dialect, the kubelet's safe sysctls, the
// API server's rules and the Warnings.
import t from "tap";
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { formatFieldError, type FieldError } from "../../../lib/manifest/field-error.js";
import {
  findEngineSecurityWarnings,
  findSecurityOptionWarnings,
} from "../../../lib/kinds/support/security-warnings.js";
import { buildObjectIndex, validatePod } from "../../../lib/manifest/validate-objects.js";
import { normalizeSysctlName, safeSysctls, sysctlNamespace } from "../../../lib/manifest/safe-sysctls.js";
import { planSecurityOptions, resolveAppArmorProfile } from "../../../lib/pod/spec/security-options.js";
import { buildSandboxSettings } from "../../../lib/pod/spec/pod-settings.js";
import { DIALECTS } from "../../../lib/runtime/dialects.js";
import { formatSandboxSettingsArgs } from "../../../lib/runtime/sandbox-settings-args.js";
import { formatSecurityArgs } from "../../../lib/runtime/security-args.js";

const { docker, podman, nerdctl } = DIALECTS;
const BOTH = { appArmor: true, seLinux: true };
const NONE = { appArmor: false, seLinux: false };
const IMAGE = "busybox:1.36";

const pod = (spec: Partial<NonNullable<Pod["spec"]>>, annotations?: Record<string, string>): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", ...(annotations ? { annotations } : {}) },
  spec: { containers: [{ name: "app", image: IMAGE }], ...spec },
});
const app = (securityContext?: Container["securityContext"]): Container => ({
  name: "app",
  image: IMAGE,
  ...(securityContext ? { securityContext } : {}),
});

t.test("argv: apparmor, label and systempaths per dialect", async (t) => {
  const security = {
    appArmor: "k8s-deny-write",
    seLinux: ["user:system_u", "type:spc_t", "level:s0:c1,c2"],
    unmaskedProc: true,
  };
  const all = [
    "--security-opt",
    "apparmor=k8s-deny-write",
    "--security-opt",
    "label=user:system_u",
    "--security-opt",
    "label=type:spc_t",
    "--security-opt",
    "label=level:s0:c1,c2",
    "--security-opt",
    "systempaths=unconfined",
  ];
  t.same(formatSecurityArgs(docker, security), all);
  t.same(formatSecurityArgs(podman, security), all);
  t.same(
    formatSecurityArgs(nerdctl, security),
    ["--security-opt", "apparmor=k8s-deny-write"],
    "nerdctl drops label= and systempaths=: left out, warned about",
  );
  t.same(formatSecurityArgs(docker, { appArmor: "unconfined", seccomp: "unconfined" }), [
    "--security-opt",
    "seccomp=unconfined",
    "--security-opt",
    "apparmor=unconfined",
  ]);
});

t.test("argv: hostUsers: false is podman's pod --userns auto:size=65536, nothing on docker and nerdctl", async (t) => {
  const settings = buildSandboxSettings(pod({ hostUsers: false }).spec!);
  t.same(settings, { privateUsers: true });
  t.same(formatSandboxSettingsArgs(podman, settings), ["--userns", "auto:size=65536"]);
  t.same(formatSandboxSettingsArgs(docker, settings), []);
  t.same(formatSandboxSettingsArgs(nerdctl, settings), []);
  t.equal(
    buildSandboxSettings(pod({ hostUsers: true }).spec!),
    undefined,
    "hostUsers: true (the default) sets nothing",
  );
});

t.test("AppArmor: container field, then the annotation, then the pod field", async (t) => {
  const podProfile = { type: "Localhost", localhostProfile: "pod-profile" };
  const annotated = { "container.apparmor.security.beta.kubernetes.io/app": "localhost/annotated" };
  t.same(
    resolveAppArmorProfile(
      pod({ securityContext: { appArmorProfile: podProfile } }, annotated),
      app({ appArmorProfile: { type: "Unconfined" } }),
    ),
    { type: "Unconfined" },
  );
  t.same(resolveAppArmorProfile(pod({ securityContext: { appArmorProfile: podProfile } }, annotated), app()), {
    type: "Localhost",
    localhostProfile: "annotated",
  });
  t.same(resolveAppArmorProfile(pod({ securityContext: { appArmorProfile: podProfile } }), app()), podProfile);
  t.same(
    resolveAppArmorProfile(pod({}, { "container.apparmor.security.beta.kubernetes.io/app": "runtime/default" }), app()),
    { type: "RuntimeDefault" },
  );
  t.same(
    resolveAppArmorProfile(pod({}, { "container.apparmor.security.beta.kubernetes.io/other": "unconfined" }), app()),
    undefined,
    "another container's annotation",
  );
});

t.test("plan: what reaches the engine, with and without AppArmor on the host", async (t) => {
  const local = pod({ securityContext: { appArmorProfile: { type: "Localhost", localhostProfile: "p" } } });
  t.same(planSecurityOptions(local, app(), BOTH), { appArmor: "p", seLinux: undefined, unmaskedProc: undefined });
  t.equal(
    planSecurityOptions(local, app(), NONE),
    undefined,
    "no AppArmor: no profile passed (podman would refuse it)",
  );
  t.same(
    planSecurityOptions(pod({ securityContext: { appArmorProfile: { type: "Unconfined" } } }), app(), NONE)?.appArmor,
    "unconfined",
  );
  t.equal(
    planSecurityOptions(pod({ securityContext: { appArmorProfile: { type: "RuntimeDefault" } } }), app(), BOTH),
    undefined,
    "RuntimeDefault: the engine's own default",
  );
  // seLinuxOptions: the container's whole, else the pod's.
  const selinux = pod({ securityContext: { seLinuxOptions: { type: "pod_t", level: "s0:c1" } } });
  t.same(
    planSecurityOptions(selinux, app(), NONE)?.seLinux,
    ["type:pod_t", "level:s0:c1"],
    "passed even without SELinux: the engine ignores it, as on a node",
  );
  t.same(planSecurityOptions(selinux, app({ seLinuxOptions: { role: "r" } }), NONE)?.seLinux, ["role:r"]);
  t.same(planSecurityOptions(pod({}), app({ procMount: "Unmasked" }), NONE), {
    appArmor: undefined,
    seLinux: undefined,
    unmaskedProc: true,
  });
  t.equal(planSecurityOptions(pod({}), app({ procMount: "Default" }), BOTH), undefined);
  t.equal(
    planSecurityOptions(pod({}), app(), BOTH),
    undefined,
    "a pod without these fields: nothing (same argv and hash)",
  );
});

t.test("the kubelet's safe sysctls and their kernel versions", async (t) => {
  const base = [
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
  ];
  const cases: [string, string[]][] = [
    ["3.10.0-1160.el7.x86_64", base],
    ["3.16.0", [...base, "net.ipv4.ip_local_reserved_ports"]],
    [
      "4.5.7",
      [
        ...base,
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
      ],
    ],
    [
      "4.6.0",
      [
        ...base,
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
      ],
    ],
    [
      "6.1.0-18-amd64",
      [
        ...base,
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
        "net.ipv4.tcp_rmem",
        "net.ipv4.tcp_wmem",
      ],
    ],
    ["unreadable", base],
  ];
  for (const [kernel, expected] of cases) t.same([...safeSysctls(kernel)].sort(), [...expected].sort(), kernel);
  t.equal(normalizeSysctlName("net/ipv4/conf/eth0.100/forwarding"), "net.ipv4.conf.eth0/100.forwarding");
  t.equal(normalizeSysctlName("net.ipv4.conf.eth0/100.forwarding"), "net.ipv4.conf.eth0/100.forwarding");
  t.equal(sysctlNamespace("net/ipv4/tcp_syncookies"), "net");
  t.equal(sysctlNamespace("kernel.msgmax"), "ipc");
  t.equal(sysctlNamespace("fs.mqueue.queues_max"), "ipc");
  t.equal(sysctlNamespace("kernel.domainname"), undefined);
});

function validate(value: unknown): string[] {
  const lines: string[] = [];
  validatePod(value, buildObjectIndex([]), (e) => lines.push(formatFieldError(e)));
  return lines;
}

t.test("the API server's rules: an AppArmor annotation and the container's effective field agree", async (t) => {
  const key = "container.apparmor.security.beta.kubernetes.io/app";
  t.same(
    validate(pod({ containers: [app({ appArmorProfile: { type: "Unconfined" } })] }, { [key]: "unconfined" })),
    [],
  );
  t.same(
    validate(pod({ containers: [app({ appArmorProfile: { type: "Unconfined" } })] }, { [key]: "runtime/default" })),
    [
      "spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match",
    ],
  );
  t.same(
    validate(pod({ securityContext: { appArmorProfile: { type: "RuntimeDefault" } } }, { [key]: "unconfined" })),
    [
      "spec.containers[0].securityContext.appArmorProfile.type: Forbidden: apparmor type in annotation and field must match",
    ],
    "the pod's profile is the container's when it has none",
  );
  t.same(
    validate(
      pod(
        { containers: [app({ appArmorProfile: { type: "Localhost", localhostProfile: "a" } })] },
        { [key]: "localhost/b" },
      ),
    ),
    [
      "spec.containers[0].securityContext.appArmorProfile.localhostProfile: Forbidden: apparmor profile in annotation and field must match",
    ],
  );
  t.same(
    validate(
      pod(
        { containers: [app({ appArmorProfile: { type: "Localhost", localhostProfile: "a" } })] },
        { [key]: "localhost/a" },
      ),
    ),
    [],
  );
});

t.test("the API server's rules", async (t) => {
  t.same(validate(pod({ containers: [app({ procMount: "Unmasked" })] })), [
    'spec.containers[0].securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`',
  ]);
  t.same(validate(pod({ hostUsers: false, containers: [app({ procMount: "Unmasked" })] })), []);
  t.same(validate(pod({ hostUsers: false, hostNetwork: true, hostPID: true, hostIPC: true })), [
    "spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false",
    "spec.hostPID: Forbidden: when `pod.Spec.HostUsers` is false",
    "spec.hostIPC: Forbidden: when `pod.Spec.HostUsers` is false",
  ]);
  t.same(
    validate(
      pod({
        hostNetwork: true,
        securityContext: {
          sysctls: [
            { name: "net/ipv4/tcp_syncookies", value: "1" },
            { name: "kernel.shm_rmid_forced", value: "1" },
          ],
        },
      }),
    ),
    [
      `spec.securityContext.sysctls[0].name: Invalid value: "net/ipv4/tcp_syncookies": may not be specified when 'hostNetwork' is true`,
    ],
  );
  t.same(
    validate(
      pod({
        hostIPC: true,
        securityContext: {
          sysctls: [
            { name: "kernel.shm_rmid_forced", value: "1" },
            { name: "net.ipv4.tcp_syncookies", value: "1" },
          ],
        },
      }),
    ),
    [
      `spec.securityContext.sysctls[0].name: Invalid value: "kernel.shm_rmid_forced": may not be specified when 'hostIPC' is true`,
    ],
  );
  t.same(validate(pod({ securityContext: { appArmorProfile: { type: "Localhost" } } })), [
    "spec.securityContext.appArmorProfile.localhostProfile: Required value: must be set when AppArmor type is Localhost",
  ]);
  t.same(validate(pod({ containers: [app({ appArmorProfile: { type: "RuntimeDefault", localhostProfile: "x" } })] })), [
    'spec.containers[0].securityContext.appArmorProfile.localhostProfile: Invalid value: "x": can only be set when AppArmor type is Localhost',
  ]);
  t.same(validate(pod({}, { "container.apparmor.security.beta.kubernetes.io/nope": "enforce" })), [
    'metadata.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid value: "nope": container not found',
    'metadata.annotations[container.apparmor.security.beta.kubernetes.io/nope]: Invalid value: "enforce": invalid AppArmor profile name: "enforce"',
  ]);
});

const warnings = (value: unknown, host = { modules: NONE, kernel: "6.1.0" }): string[] => {
  const found: FieldError[] = [];
  findSecurityOptionWarnings(value, (w) => found.push(w), host);
  return found.map((w) => `${w.path.display}: ${w.detail}`);
};

t.test("Warnings: unsafe sysctls, Strict, no AppArmor or SELinux on the host", async (t) => {
  const sysctls = [
    { name: "net.ipv4.tcp_syncookies", value: "1" },
    { name: "net/ipv4/ping_group_range", value: "0 1" },
    { name: "kernel.msgmax", value: "9000" },
    { name: "net.ipv4.tcp_rmem", value: "1 2 3" },
  ];
  t.same(warnings(pod({ securityContext: { sysctls } }), { modules: BOTH, kernel: "4.14.0" }), [
    `spec.securityContext.sysctls[2]: "kernel.msgmax" is not in the kubelet's safe set: a default kubelet refuses the pod (SysctlForbidden) unless --allowed-unsafe-sysctls allows it; podrun sets it`,
    `spec.securityContext.sysctls[3]: "net.ipv4.tcp_rmem" is not in the kubelet's safe set: a default kubelet refuses the pod (SysctlForbidden) unless --allowed-unsafe-sysctls allows it; podrun sets it`,
  ]);
  t.equal(
    warnings(pod({ securityContext: { sysctls } }), { modules: BOTH, kernel: "6.1.0" }).length,
    1,
    "tcp_rmem is safe from 4.15",
  );
  t.same(warnings({ spec: { securityContext: { supplementalGroupsPolicy: "Merge" } } }), []);
  t.match(warnings({ spec: { securityContext: { supplementalGroupsPolicy: "Strict" } } }), [
    /^spec\.securityContext\.supplementalGroupsPolicy: docker, podman and nerdctl always add/,
  ]);
  const lsm = pod(
    {
      securityContext: { appArmorProfile: { type: "RuntimeDefault" }, seLinuxOptions: { level: "s0" } },
      containers: [app({ appArmorProfile: { type: "Unconfined" }, seLinuxOptions: { type: "t" } })],
    },
    { "container.apparmor.security.beta.kubernetes.io/app": "localhost/x" },
  );
  t.same(
    warnings(lsm).map((line) => line.split(":")[0]),
    [
      "spec.securityContext.appArmorProfile",
      "metadata.annotations[container.apparmor.security.beta.kubernetes.io/app]",
      "spec.securityContext.seLinuxOptions",
      "spec.containers[0].securityContext.seLinuxOptions",
    ],
    "an Unconfined profile needs no AppArmor",
  );
  t.same(warnings(lsm, { modules: BOTH, kernel: "6.1.0" }), [], "a host with both modules");
});

t.test("Warnings per engine: hostUsers on docker and nerdctl, nerdctl's missing options", async (t) => {
  const found: string[] = [];
  findEngineSecurityWarnings(
    pod({
      hostUsers: false,
      securityContext: { seLinuxOptions: { level: "s0" } },
      containers: [app({ procMount: "Unmasked" })],
    }),
    (engine, w) => found.push(`${engine} ${w.path.display}`),
  );
  t.same(found, [
    "docker spec.hostUsers",
    "nerdctl spec.hostUsers",
    "nerdctl spec.securityContext.seLinuxOptions",
    "nerdctl spec.containers[0].securityContext.procMount",
  ]);
  const none: string[] = [];
  findEngineSecurityWarnings(pod({ hostUsers: true }), (engine) => none.push(engine));
  t.same(none, []);
});
