import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import { buildContainerSpec, buildSandboxSpec, computePodHash } from "../../../lib/pod/spec/container-spec.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import { describeDesiredPod, isSettled, planPod, type DesiredPod } from "../../../lib/pod/reconcile/reconcile-plan.js";
import { LABEL_POD_HASH } from "../../../lib/pod/spec/spec-hash.js";
import type { ContainerState } from "../../../lib/runtime/types.js";

// The plan of `up` for a pod that is already there, from the labels the engine reports: pure
// logic, with container states as the engine would give them. test/commands/up-reconcile.e2e.test.ts
// carries plans out against docker and podman.

const identity: PodIdentity = { name: "web", namespace: "default", uid: "uid-old" };
const INFRA = "registry.k8s.io/pause:3.10";

const pod = (spec: Partial<Pod["spec"]>, metadata: Partial<Pod["metadata"]> = {}): Pod =>
  defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", ...metadata },
    spec: { containers: [], ...spec },
  });

const base = pod({
  initContainers: [{ name: "init", image: "busybox:1.36", command: ["true"] }],
  containers: [
    { name: "app", image: "busybox:1.36", command: ["sleep", "600"], ports: [{ containerPort: 80, hostPort: 8080 }] },
    { name: "side", image: "busybox:1.36", command: ["sleep", "600"] },
  ],
});

function state(name: string, labels: Record<string, string>, overrides: Partial<ContainerState> = {}): ContainerState {
  return {
    id: `id-${name}`,
    name: `default_web_${name}`,
    status: "running",
    running: true,
    exitCode: 0,
    startedAt: "2026-01-01T00:00:00Z",
    finishedAt: "",
    createdAt: "2026-01-01T00:00:00Z",
    restartCount: 0,
    labels,
    image: "busybox:1.36",
    ...overrides,
  };
}

/** The containers `up` would have left for `p`: what the engine reports after a successful run. */
function running(p: Pod, options: { uid?: string } = {}): ContainerState[] {
  const id = { ...identity, uid: options.uid ?? identity.uid };
  const podHash = computePodHash({ pod: p, identity: id, infraImage: INFRA, publishAll: false });
  const out: ContainerState[] = [];
  if (!p.spec!.hostNetwork)
    out.push(
      state("POD", buildSandboxSpec({ pod: p, identity: id, infraImage: INFRA, publishAll: false, podHash }).labels),
    );
  for (const c of p.spec!.initContainers ?? []) {
    out.push(
      state(
        c.name,
        buildContainerSpec({ pod: p, identity: id, container: c, kind: "init", imageRef: c.image!, podHash }).labels,
        { status: "exited", running: false },
      ),
    );
  }
  for (const c of p.spec!.containers)
    out.push(
      state(
        c.name,
        buildContainerSpec({ pod: p, identity: id, container: c, kind: "app", imageRef: c.image!, podHash }).labels,
      ),
    );
  return out;
}

const desired = (p: Pod): DesiredPod =>
  describeDesiredPod({ pod: p, identity: { ...identity, uid: "uid-new" }, infraImage: INFRA, publishAll: false });

const update = (list: ContainerState[], name: string, overrides: Partial<ContainerState>) =>
  list.map((s) => (s.name === `default_web_${name}` ? { ...s, ...overrides } : s));

t.test("nothing there: create every app container", async (t) => {
  t.strictSame(planPod([], desired(base)), {
    action: "create",
    keep: [],
    recreate: [],
    notRunning: [],
    create: ["app", "side"],
    remove: [],
  });
});

t.test("an unchanged running pod is kept whole, with its UID", async (t) => {
  t.strictSame(planPod(running(base), desired(base)), {
    action: "keep",
    keep: ["app", "side"],
    recreate: [],
    notRunning: [],
    create: [],
    remove: [],
    uid: "uid-old",
  });
});

t.test("a changed app container is recreated alone, in the kept sandbox", async (t) => {
  const changed = pod({
    ...base.spec!,
    containers: [base.spec!.containers[0]!, { ...base.spec!.containers[1]!, env: [{ name: "MODE", value: "fast" }] }],
  });
  const plan = planPod(running(base), desired(changed));
  t.equal(plan.action, "keep");
  t.same(plan.keep, ["app"]);
  t.same(plan.recreate, ["side"]);
  t.same(plan.notRunning, [], "it was running: it is stopped first (Killing)");
  t.equal(plan.uid, "uid-old");
});

t.test("containers added to or dropped from the manifest are created or removed", async (t) => {
  const changed = pod({
    ...base.spec!,
    containers: [base.spec!.containers[0]!, { name: "extra", image: "busybox:1.36" }],
  });
  const plan = planPod(running(base), desired(changed));
  t.equal(plan.action, "keep");
  t.same(plan.keep, ["app"]);
  t.same(plan.create, ["extra"]);
  t.same(plan.remove, ["side"]);
});

t.test("pod-level changes recreate the whole pod with a new UID", async (t) => {
  const cases: [string, Pod][] = [
    [
      "hostPort",
      pod({
        ...base.spec!,
        containers: [
          { ...base.spec!.containers[0]!, ports: [{ containerPort: 80, hostPort: 8081 }] },
          base.spec!.containers[1]!,
        ],
      }),
    ],
    ["labels", pod(base.spec, { labels: { tier: "web" } })],
    [
      "init container",
      pod({ ...base.spec!, initContainers: [{ name: "init", image: "busybox:1.36", command: ["sh", "-c", "true"] }] }),
    ],
    ["volumes", pod({ ...base.spec!, volumes: [{ name: "data", emptyDir: {} }] })],
  ];
  for (const [what, changed] of cases) {
    const plan = planPod(running(base), desired(changed));
    t.equal(plan.action, "recreate-pod", what);
    t.equal(plan.cause, "pod-changed", what);
    t.same(plan.create, ["app", "side"], what);
    t.same(plan.remove.sort(), ["POD", "app", "init", "side"], `${what}: everything goes`);
    t.equal(plan.uid, undefined, `${what}: a new pod, a new UID`);
  }
});

t.test("--replace recreates everything, even when nothing changed", async (t) => {
  const plan = planPod(running(base), desired(base), { replace: true });
  t.equal(plan.action, "recreate-pod");
  t.equal(plan.cause, "replace");
  t.equal(plan.uid, undefined);
});

t.test(
  "a sandbox that is not running: the pod is recreated, keeping its UID (the kubelet's SandboxChanged)",
  async (t) => {
    const stopped = update(running(base), "POD", { running: false, status: "exited", exitCode: 137 });
    const plan = planPod(stopped, desired(base));
    t.equal(plan.action, "recreate-pod");
    t.equal(plan.cause, "sandbox-not-running");
    t.equal(plan.uid, "uid-old");
    const gone = running(base).filter((s) => s.name !== "default_web_POD");
    t.equal(planPod(gone, desired(base)).cause, "sandbox-not-running", "no infra container at all");
  },
);

t.test("an init container that did not complete: the pod is recreated", async (t) => {
  for (const overrides of [
    { running: true, status: "running" },
    { status: "exited", exitCode: 1 },
    { status: "created" },
  ] as Partial<ContainerState>[]) {
    t.equal(
      planPod(update(running(base), "init", overrides), desired(base)).cause,
      "init-incomplete",
      JSON.stringify(overrides),
    );
  }
});

t.test("containers of two runs mixed, or a label without the pod hash: recreated", async (t) => {
  const mixed = update(running(base), "side", {
    labels: { ...running(base).find((s) => s.name === "default_web_side")!.labels, "io.kubernetes.pod.uid": "other" },
  });
  t.equal(planPod(mixed, desired(base)).action, "recreate-pod");
  const old = running(base).map((s) => {
    const labels = { ...s.labels };
    delete labels[LABEL_POD_HASH];
    return { ...s, labels };
  });
  t.equal(planPod(old, desired(base)).cause, "pod-changed", "made by a podrun without pod hashes");
});

t.test("metadata.uid: the same UID keeps the pod, another one is another pod", async (t) => {
  const withUid = (uid: string) => pod(base.spec, { uid });
  const existing = running(withUid("11111111-1111-1111-1111-111111111111"), {
    uid: "11111111-1111-1111-1111-111111111111",
  });
  t.equal(planPod(existing, desired(withUid("11111111-1111-1111-1111-111111111111"))).action, "keep");
  t.equal(planPod(existing, desired(withUid("22222222-2222-2222-2222-222222222222"))).action, "recreate-pod");
});

t.test("an unchanged container that is not running: kept or recreated by its restart policy", async (t) => {
  for (const [policy, exitCode, kept] of [
    ["Always", 0, false],
    ["Always", 1, false],
    ["OnFailure", 0, true],
    ["OnFailure", 2, false],
    ["Never", 0, true],
    ["Never", 2, true],
  ] as const) {
    const p = pod({ ...base.spec!, restartPolicy: policy });
    const plan = planPod(update(running(p), "side", { running: false, status: "exited", exitCode }), desired(p));
    t.equal(plan.action, "keep");
    if (kept) t.same(plan.keep, ["app", "side"], `${policy}, exit ${exitCode}: kept`);
    else {
      t.same(plan.recreate, ["side"], `${policy}, exit ${exitCode}: recreated`);
      t.same(plan.notRunning, ["side"], "nothing to stop");
    }
  }
  const state = (overrides: Partial<ContainerState>): ContainerState => ({ ...running(base)[0]!, ...overrides });
  t.ok(isSettled(state({ running: false, status: "restarting" }), "Always"), "the engine is restarting it");
  t.notOk(isSettled(state({ running: false, status: "created" }), "Never"), "never started");
  t.notOk(isSettled(state({ running: false, status: "paused" }), "Always"));
  t.notOk(isSettled(state({ running: false, status: "dead" }), "Never"));
});

t.test("hostNetwork pods have no infra container: the pod hash on the containers is enough", async (t) => {
  const host = pod({
    hostNetwork: true,
    containers: [{ name: "app", image: "busybox:1.36", ports: [{ containerPort: 9000 }] }],
  });
  t.equal(planPod(running(host), desired(host)).action, "keep");
  const moved = pod({
    hostNetwork: true,
    containers: [{ name: "app", image: "busybox:1.36", ports: [{ containerPort: 9001 }] }],
  });
  // On the host's network the container binds its port itself: nothing is published on a sandbox.
  t.same(planPod(running(host), desired(moved)).recreate, ["app"], "a hostNetwork port belongs to its container");
  t.equal(
    planPod(running(base), desired(pod({ ...base.spec!, hostNetwork: true }))).action,
    "recreate-pod",
    "to hostNetwork",
  );
});

t.test(
  "sidecars: a kept pod keeps its started sidecars, running or not; one never started or missing recreates the pod",
  async (t) => {
    const withSidecar = pod({
      initContainers: [
        { name: "proxy", image: "busybox:1.36", command: ["httpd", "-f"], restartPolicy: "Always" },
        ...base.spec!.initContainers!,
      ],
      containers: base.spec!.containers,
    });
    const id = { ...identity };
    const podHash = computePodHash({ pod: withSidecar, identity: id, infraImage: INFRA, publishAll: false });
    const sidecarLabels = buildContainerSpec({
      pod: withSidecar,
      identity: id,
      container: withSidecar.spec!.initContainers![0]!,
      kind: "sidecar",
      imageRef: "busybox:1.36",
      podHash,
    }).labels;
    t.equal(sidecarLabels["io.podrun.container.kind"], "sidecar");
    const existing = [
      ...running(withSidecar).filter((s) => s.labels["io.kubernetes.container.name"] !== "proxy"),
      state("proxy", sidecarLabels),
    ];
    const kept = planPod(existing, desired(withSidecar));
    t.equal(kept.action, "keep");
    t.same(kept.remove, [], "the sidecar is not a container to remove");
    t.same(kept.keep, ["app", "side"]);
    t.equal(
      planPod(update(existing, "proxy", { status: "exited", running: false, exitCode: 137 }), desired(withSidecar))
        .action,
      "keep",
      "an exited sidecar is the engine's to restart",
    );
    t.equal(planPod(update(existing, "proxy", { status: "restarting" }), desired(withSidecar)).action, "keep");
    const neverStarted = planPod(
      update(existing, "proxy", { status: "created", running: false, startedAt: "" }),
      desired(withSidecar),
    );
    t.same([neverStarted.action, neverStarted.cause], ["recreate-pod", "init-incomplete"]);
    const missing = planPod(
      existing.filter((s) => s.labels["io.kubernetes.container.name"] !== "proxy"),
      desired(withSidecar),
    );
    t.same([missing.action, missing.cause], ["recreate-pod", "init-incomplete"]);
    // A changed sidecar is a changed init container: a new pod hash, the pod recreated.
    const changed = pod({
      initContainers: [
        { ...withSidecar.spec!.initContainers![0]!, command: ["httpd", "-f", "-p", "81"] },
        ...base.spec!.initContainers!,
      ],
      containers: base.spec!.containers,
    });
    const recreated = planPod(existing, desired(changed));
    t.same([recreated.action, recreated.cause], ["recreate-pod", "pod-changed"]);
  },
);

t.test(
  "env from ConfigMaps and Secrets: a changed value recreates the container, run-dependent values do not",
  async (t) => {
    const p = pod({
      initContainers: [{ name: "init", image: "busybox:1.36", envFrom: [{ configMapRef: { name: "cfg" } }] }],
      containers: [
        {
          name: "app",
          image: "busybox:1.36",
          env: [
            { name: "MODE", valueFrom: { configMapKeyRef: { name: "cfg", key: "MODE" } } },
            { name: "PW", valueFrom: { secretKeyRef: { name: "creds", key: "PW" } } },
            { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
            { name: "UID", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
          ],
        },
      ],
    });
    const objects = (mode: string, pw: string) => ({
      configMaps: [{ metadata: { name: "cfg" }, data: { MODE: mode } }],
      secrets: [{ metadata: { name: "creds" }, stringData: { PW: pw } }],
    });
    const describe = (uid: string, o: ReturnType<typeof objects>) =>
      describeDesiredPod({ pod: p, identity: { ...identity, uid }, infraImage: INFRA, publishAll: false, objects: o });
    const first = describe("uid-1", objects("fast", "hunter2"));
    t.same(
      describe("uid-2", objects("fast", "hunter2")),
      first,
      "a fresh UID (and the pod IP, unknown here) change nothing",
    );
    const changedConfig = describe("uid-1", objects("slow", "hunter2"));
    t.not(changedConfig.containers[0]!.hash, first.containers[0]!.hash, "a ConfigMap value counts");
    t.not(changedConfig.podHash, first.podHash, "through an init container's env, the pod's hash too");
    t.not(
      describe("uid-1", objects("fast", "hunter3")).containers[0]!.hash,
      first.containers[0]!.hash,
      "a Secret value counts",
    );
    const spec = buildContainerSpec({
      pod: p,
      identity,
      container: p.spec!.containers[0]!,
      kind: "app",
      imageRef: "busybox:1.36",
      objects: objects("fast", "hunter2"),
    });
    t.notMatch(JSON.stringify(spec.labels), /hunter2/, "never stored in a label");
    const run = buildContainerSpec({
      pod: p,
      identity,
      container: p.spec!.containers[0]!,
      kind: "app",
      imageRef: "busybox:1.36",
      objects: objects("fast", "hunter2"),
      env: [
        { name: "MODE", value: "fast" },
        { name: "PW", value: "hunter2" },
        { name: "IP", value: "10.88.0.9" },
        { name: "UID", value: "uid-old" },
      ],
    });
    t.equal(
      run.labels["io.podrun.spec-hash"],
      first.containers[0]!.hash,
      "the label of a run's container is the hash `up` compares with",
    );
    t.same(
      run.env?.find((e) => e.name === "IP"),
      { name: "IP", value: "10.88.0.9" },
      "while the container gets the run's values",
    );
  },
);
