import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import { buildContainerSpec, buildSandboxSpec, computePodHash } from "../../../lib/pod/spec/container-spec.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import {
  buildContainerPodSettings,
  buildSandboxSettings,
  resolvePodHostname,
} from "../../../lib/pod/spec/pod-settings.js";
import { LABEL_SPEC_HASH } from "../../../lib/pod/spec/spec-hash.js";

const identity: PodIdentity = { name: "web", namespace: "ci", uid: "u-1" };
const pod = (spec: Partial<Pod["spec"]>): Pod =>
  defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "ci", labels: { app: "web" } },
    spec: {
      containers: [
        {
          name: "app",
          image: "busybox:1.36",
          command: ["sleep", "600"],
          ports: [{ containerPort: 80, hostPort: 8080 }],
        },
      ],
      ...spec,
    },
  });
const podHash = (p: Pod) =>
  computePodHash({ pod: p, identity, infraImage: "registry.k8s.io/pause:3.10", publishAll: false });
const containerHash = (p: Pod) =>
  buildContainerSpec({ pod: p, identity, container: p.spec!.containers[0]!, kind: "app", imageRef: "busybox:1.36" })
    .labels[LABEL_SPEC_HASH];

t.test("the hostname: spec.hostname, else the pod's name cut to 63 characters as the kubelet does", async (t) => {
  t.equal(resolvePodHostname(pod({}), "web"), "web");
  t.equal(resolvePodHostname(pod({ hostname: "shop" }), "web"), "shop");
  const long = `${"a".repeat(61)}-.b`;
  t.equal(resolvePodHostname(pod({}), long), "a".repeat(61), "no trailing - or . after the cut");
  t.equal(resolvePodHostname(pod({}), "a".repeat(70)), "a".repeat(63));
  t.equal(
    buildSandboxSpec({ pod: pod({ hostname: "shop" }), identity, infraImage: "p", publishAll: false }).hostname,
    "shop",
  );
  t.equal(
    buildSandboxSpec({
      pod: pod({ hostname: "shop", hostNetwork: true }),
      identity,
      infraImage: "p",
      publishAll: false,
    }).hostname,
    undefined,
  );
});

t.test(
  "settings from the pod: shareProcessNamespace; hostAliases and dnsConfig are the pod's files, not the sandbox's",
  async (t) => {
    const spec = pod({
      hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo.local", "bar.local"] }],
      dnsPolicy: "None",
      dnsConfig: {
        nameservers: ["10.9.8.7"],
        searches: ["example"],
        options: [{ name: "ndots", value: "2" }, { name: "edns0" }],
      },
      shareProcessNamespace: true,
    }).spec!;
    t.same(buildSandboxSettings(spec), { sharePid: true });
    t.same(buildContainerPodSettings(spec), { sharePid: true });
  },
);

t.test("a pod that sets none of them has no settings and hashes as it did before they were honoured", async (t) => {
  const plain = pod({});
  t.equal(buildSandboxSettings(plain.spec!), undefined);
  t.equal(buildContainerPodSettings(plain.spec!), undefined);
  t.equal(buildSandboxSettings(pod({ shareProcessNamespace: false, hostAliases: [], dnsConfig: {} }).spec!), undefined);
  // Computed with podrun before pod-level settings existed: a pod already running is kept.
  t.equal(podHash(plain), "ba0967fd3ec88296");
  t.equal(
    podHash(pod({ hostAliases: [], dnsConfig: {}, dnsPolicy: "Default" })),
    "ba0967fd3ec88296",
    "empty ones change nothing",
  );
  t.equal(containerHash(plain), "aa7742eeca55e80c");
});

t.test("a hostNetwork pod has no sandbox to carry them", async (t) => {
  const spec = pod({
    hostNetwork: true,
    hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo.local"] }],
    shareProcessNamespace: true,
  }).spec!;
  t.equal(buildSandboxSettings(spec), undefined);
  t.equal(buildContainerPodSettings(spec), undefined);
});

t.test("each setting counts in the pod hash; shareProcessNamespace in the container's too", async (t) => {
  const plain = pod({});
  const variants = [
    pod({ hostname: "shop" }),
    pod({ hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo.local"] }] }),
    pod({ hostAliases: [{ ip: "10.1.2.4", hostnames: ["foo.local"] }] }),
    pod({ subdomain: "shop" }),
    pod({ dnsConfig: { nameservers: ["10.9.8.7"] } }),
    pod({ dnsPolicy: "None", dnsConfig: { nameservers: ["10.9.8.7"] } }),
    pod({ dnsConfig: { options: [{ name: "ndots", value: "2" }] } }),
    pod({ shareProcessNamespace: true }),
  ];
  const hashes = new Set([plain, ...variants].map(podHash));
  t.equal(hashes.size, variants.length + 1);
  t.not(containerHash(pod({ shareProcessNamespace: true })), containerHash(plain));
  t.equal(
    containerHash(pod({ hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo.local"] }] })),
    containerHash(plain),
    "the pod hash alone carries the others",
  );
});

t.test(
  "hostPID, hostIPC and sysctls: on each container and the sandbox; each counts in the hashes; false or empty changes nothing",
  async (t) => {
    const spec = pod({
      hostPID: true,
      hostIPC: true,
      securityContext: { sysctls: [{ name: "net.core.somaxconn", value: "1024" }] },
    }).spec!;
    t.same(buildSandboxSettings(spec), { hostIpc: true, sysctls: ["net.core.somaxconn=1024"] });
    t.same(buildContainerPodSettings(spec), { hostPid: true, hostIpc: true });
    t.same(
      buildSandboxSettings(
        pod({
          hostNetwork: true,
          hostIPC: true,
          securityContext: { sysctls: [{ name: "net.core.somaxconn", value: "1" }] },
        }).spec!,
      ),
      { hostIpc: true },
      "hostNetwork: no sysctls (named in a Warning)",
    );
    const plain = pod({});
    t.equal(podHash(pod({ hostPID: false, hostIPC: false, securityContext: { sysctls: [] } })), podHash(plain));
    t.equal(containerHash(pod({ hostPID: false, hostIPC: false })), containerHash(plain));
    const hashes = new Set(
      [
        plain,
        pod({ hostIPC: true }),
        pod({ securityContext: { sysctls: [{ name: "net.core.somaxconn", value: "1024" }] } }),
      ].map(podHash),
    );
    t.equal(hashes.size, 3);
    t.not(containerHash(pod({ hostPID: true })), containerHash(plain));
    t.not(containerHash(pod({ hostIPC: true })), containerHash(plain));
  },
);
