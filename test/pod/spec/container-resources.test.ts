// A container's resources in its ContainerSpec: init containers included, each its own, and in the
// spec hash only when set (a pod without resources keeps the hash it had before podrun read them).
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import { buildContainerSpec } from "../../../lib/pod/spec/container-spec.js";

const identity = { name: "web", namespace: "ci", uid: "u-1" };
const pod = (containers: Container[], initContainers: Container[] = []): Pod =>
  defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "ci" },
    spec: { containers, initContainers },
  });
const hashOf = (p: Pod, container: Container, kind: "init" | "app" = "app") =>
  buildContainerSpec({ pod: p, identity, container, kind, imageRef: "busybox:latest" }).labels["io.podrun.spec-hash"];

t.test("app and init containers each get their own resources", async (t) => {
  const p = pod(
    [
      {
        name: "app",
        image: "busybox",
        resources: { limits: { memory: "64Mi", cpu: "500m" }, requests: { cpu: "250m" } },
      },
    ],
    [{ name: "init", image: "busybox", resources: { requests: { memory: "16Mi", cpu: "100m" } } }],
  );
  const app = buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.containers[0]!,
    kind: "app",
    imageRef: "busybox:latest",
  });
  // The API server's default copies limits.memory into requests.memory (lib/manifest/defaults.ts).
  t.same(app.resources, {
    memoryLimitBytes: 67108864,
    memoryReservationBytes: 67108864,
    cpuPeriod: 100000,
    cpuQuota: 50000,
    cpuShares: 256,
  });
  const init = buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.initContainers![0]!,
    kind: "init",
    imageRef: "busybox:latest",
  });
  t.same(init.resources, { memoryReservationBytes: 16777216, cpuShares: 102 });
  const plain = pod([{ name: "app", image: "busybox" }]);
  t.equal(
    buildContainerSpec({
      pod: plain,
      identity,
      container: plain.spec!.containers[0]!,
      kind: "app",
      imageRef: "busybox:latest",
    }).resources,
    undefined,
    "none set: none",
  );
});

t.test("the spec hash: unchanged without resources, changed with a changed limit", async (t) => {
  const plain = pod([{ name: "app", image: "busybox", command: ["sleep", "60"] }]);
  // The value podrun computed before it read resources: pods made then are kept.
  t.equal(hashOf(plain, plain.spec!.containers[0]!), "a042be9b64446e87");
  const limited = (memory: string) => {
    const p = pod([{ name: "app", image: "busybox", command: ["sleep", "60"], resources: { limits: { memory } } }]);
    return hashOf(p, p.spec!.containers[0]!);
  };
  t.not(limited("64Mi"), hashOf(plain, plain.spec!.containers[0]!));
  t.not(limited("64Mi"), limited("128Mi"), "a changed limit recreates the container");
  t.equal(limited("64Mi"), limited("67108864"), "the same bytes written another way: the same container");
  const ephemeral = pod([
    { name: "app", image: "busybox", command: ["sleep", "60"], resources: { limits: { "ephemeral-storage": "1Gi" } } },
  ]);
  t.equal(
    hashOf(ephemeral, ephemeral.spec!.containers[0]!),
    hashOf(plain, plain.spec!.containers[0]!),
    "a resource podrun does not act on counts for nothing",
  );
});
