import type { Container, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import { buildContainerSpec, buildSandboxSpec, computePodHash } from "../../../lib/pod/spec/container-spec.js";
import type { PodIdentity } from "../../../lib/pod/identity.js";
import {
  canonicalJson,
  hashContainer,
  LABEL_POD_HASH,
  LABEL_SPEC_HASH,
  shortHash,
} from "../../../lib/pod/spec/spec-hash.js";

const identity: PodIdentity = { name: "web", namespace: "ci", uid: "u-1" };
const pod = (spec: Partial<Pod["spec"]>, labels?: Record<string, string>): Pod =>
  defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "ci", ...(labels ? { labels } : {}) },
    spec: { containers: [], ...spec },
  });

const app = (extra: Partial<Container> = {}): Container => ({
  name: "app",
  image: "busybox:1.36",
  command: ["sleep", "600"],
  ...extra,
});

/** The spec-hash label of container `app` in a pod with `spec`. */
function hashOf(spec: Partial<Pod["spec"]>, id: PodIdentity = identity): string {
  const p = pod(spec);
  const container = p.spec!.containers[0]!;
  return buildContainerSpec({ pod: p, identity: id, container, kind: "app", imageRef: container.image! }).labels[
    LABEL_SPEC_HASH
  ]!;
}

const podHashOf = (
  spec: Partial<Pod["spec"]>,
  options: { labels?: Record<string, string>; publishAll?: boolean; infraImage?: string } = {},
) =>
  computePodHash({
    pod: pod(spec, options.labels),
    identity,
    infraImage: options.infraImage ?? "registry.k8s.io/pause:3.10",
    publishAll: options.publishAll ?? false,
  });

t.test("canonical JSON: key order does not matter, undefined fields are left out", async (t) => {
  t.equal(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } }), '{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
  t.equal(shortHash({ a: 1, b: [2, 3] }), shortHash({ b: [2, 3], a: 1 }));
  t.not(shortHash({ a: [2, 3] }), shortHash({ a: [3, 2] }), "array order does matter");
  t.match(shortHash({}), /^[0-9a-f]{16}$/);
});

t.test("a container's hash is stable, and independent of the run and of the image's default tag", async (t) => {
  const base = hashOf({ containers: [app()] });
  t.match(base, /^[0-9a-f]{16}$/);
  t.equal(hashOf({ containers: [app()] }), base, "same manifest, same hash");
  t.equal(
    hashOf({ containers: [app()] }, { ...identity, uid: "another-run" }),
    base,
    "the run's UID is not part of it",
  );
  // Keys written in another order are the same manifest.
  const reordered = JSON.parse(
    JSON.stringify({ command: ["sleep", "600"], image: "busybox:1.36", name: "app" }),
  ) as Container;
  t.equal(hashOf({ containers: [reordered] }), base);
  const p = pod({ containers: [app()] });
  const a = buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.containers[0]!,
    kind: "app",
    imageRef: "busybox:1.36",
  });
  const b = buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.containers[0]!,
    kind: "app",
    imageRef: "docker.io/library/busybox:1.36",
  });
  t.equal(a.labels[LABEL_SPEC_HASH], b.labels[LABEL_SPEC_HASH], "the image is hashed as written, not as resolved");
});

t.test("every field that shapes the container changes its hash", async (t) => {
  const base = hashOf({ containers: [app()] });
  const variants: [string, Partial<Pod["spec"]>][] = [
    ["image", { containers: [app({ image: "busybox:1.37" })] }],
    ["image written differently", { containers: [app({ image: "busybox:1.36@sha256:" + "a".repeat(64) })] }],
    ["command", { containers: [app({ command: ["sleep", "601"] })] }],
    ["args", { containers: [app({ args: ["x"] })] }],
    ["env value", { containers: [app({ env: [{ name: "A", value: "1" }] })] }],
    ["workingDir", { containers: [app({ workingDir: "/srv" })] }],
    ["ports", { containers: [app({ ports: [{ containerPort: 80 }] })] }],
    ["restartPolicy", { restartPolicy: "Never", containers: [app()] }],
    ["stop timeout", { terminationGracePeriodSeconds: 1, containers: [app()] }],
    ["postStart hook", { containers: [app({ lifecycle: { postStart: { exec: { command: ["true"] } } } })] }],
    ["preStop hook", { containers: [app({ lifecycle: { preStop: { exec: { command: ["true"] } } } })] }],
    ["readiness probe", { containers: [app({ readinessProbe: { tcpSocket: { port: 80 } } })] }],
    ["liveness probe", { containers: [app({ livenessProbe: { exec: { command: ["true"] } } })] }],
    ["startup probe", { containers: [app({ startupProbe: { exec: { command: ["true"] } } })] }],
  ];
  for (const [what, spec] of variants) t.not(hashOf(spec), base, what);
  // Env: names and values both count; order too (a later entry wins in Kubernetes).
  const env = (list: { name: string; value: string }[]) => hashOf({ containers: [app({ env: list })] });
  t.not(env([{ name: "A", value: "1" }]), env([{ name: "A", value: "2" }]), "env value");
  t.not(env([{ name: "A", value: "1" }]), env([{ name: "B", value: "1" }]), "env name");
  t.not(
    env([
      { name: "A", value: "1" },
      { name: "A", value: "2" },
    ]),
    env([
      { name: "A", value: "2" },
      { name: "A", value: "1" },
    ]),
    "env order",
  );
  const probe = (periodSeconds: number) =>
    hashOf({ containers: [app({ readinessProbe: { tcpSocket: { port: 80 }, periodSeconds } })] });
  t.not(probe(5), probe(6), "a probe's timing");
});

t.test("the label never carries an environment value", async (t) => {
  const p = pod({ containers: [app({ env: [{ name: "TOKEN", value: "s3cret-value" }] })] });
  const spec = buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.containers[0]!,
    kind: "app",
    imageRef: "busybox:1.36",
  });
  t.notMatch(JSON.stringify(spec.labels), "s3cret");
});

t.test("fields added to ContainerSpec later count without a change here", async (t) => {
  const p = pod({ containers: [app()] });
  const container = p.spec!.containers[0]!;
  const spec = buildContainerSpec({ pod: p, identity, container, kind: "app", imageRef: "busybox:1.36" });
  const extended = { ...spec, mounts: [{ volume: "default_web_data", target: "/b", readOnly: false }] };
  t.not(hashContainer(extended, container), hashContainer(spec, container));
  t.equal(
    hashContainer({ ...spec, labels: { other: "x" }, name: "renamed" }, container),
    hashContainer(spec, container),
    "names and labels do not count",
  );
});

t.test("pod hash: pod-level fields count, app-container details do not", async (t) => {
  const base = podHashOf({ containers: [app({ ports: [{ containerPort: 80, hostPort: 8080 }] })] });
  t.match(base, /^[0-9a-f]{16}$/);
  t.equal(podHashOf({ containers: [app({ ports: [{ containerPort: 80, hostPort: 8080 }] })] }), base, "stable");
  t.equal(
    podHashOf({
      containers: [app({ ports: [{ containerPort: 80, hostPort: 8080 }], env: [{ name: "A", value: "2" }] })],
    }),
    base,
    "an app container's env is its own business",
  );
  const variants: [string, string][] = [
    ["hostPort", podHashOf({ containers: [app({ ports: [{ containerPort: 80, hostPort: 8081 }] })] })],
    [
      "hostNetwork",
      podHashOf({ hostNetwork: true, containers: [app({ ports: [{ containerPort: 80, hostPort: 80 }] })] }),
    ],
    [
      "labels",
      podHashOf({ containers: [app({ ports: [{ containerPort: 80, hostPort: 8080 }] })] }, { labels: { tier: "web" } }),
    ],
    [
      "volumes",
      podHashOf({
        volumes: [{ name: "data", emptyDir: {} }],
        containers: [app({ ports: [{ containerPort: 80, hostPort: 8080 }] })],
      }),
    ],
    [
      "infra image",
      podHashOf({ containers: [app({ ports: [{ containerPort: 80, hostPort: 8080 }] })] }, { infraImage: "pause:3.9" }),
    ],
    [
      "an init container",
      podHashOf({
        initContainers: [{ name: "init", image: "busybox:1.36" }],
        containers: [app({ ports: [{ containerPort: 80, hostPort: 8080 }] })],
      }),
    ],
  ];
  for (const [what, hash] of variants) t.not(hash, base, what);
  const init = (command: string[]) =>
    podHashOf({ initContainers: [{ name: "init", image: "busybox:1.36", command }], containers: [app()] });
  t.not(init(["true"]), init(["false"]), "an init container's command");
  // --publish-all matters only when there is a containerPort-only port to publish.
  t.equal(
    podHashOf({ containers: [app()] }, { publishAll: true }),
    podHashOf({ containers: [app()] }),
    "--publish-all with nothing to publish",
  );
  t.not(
    podHashOf({ containers: [app({ ports: [{ containerPort: 80 }] })] }, { publishAll: true }),
    podHashOf({ containers: [app({ ports: [{ containerPort: 80 }] })] }),
    "--publish-all publishing a port",
  );
});

t.test("the sandbox and the containers carry the pod hash when given", async (t) => {
  const p = pod({ containers: [app()] });
  const podHash = computePodHash({ pod: p, identity, infraImage: "pause:3.10", publishAll: false });
  t.equal(
    buildSandboxSpec({ pod: p, identity, infraImage: "pause:3.10", publishAll: false, podHash }).labels[LABEL_POD_HASH],
    podHash,
  );
  t.equal(
    buildContainerSpec({ pod: p, identity, container: p.spec!.containers[0]!, kind: "app", imageRef: "x", podHash })
      .labels[LABEL_POD_HASH],
    podHash,
  );
  t.notOk(LABEL_POD_HASH in buildSandboxSpec({ pod: p, identity, infraImage: "pause:3.10", publishAll: false }).labels);
});
