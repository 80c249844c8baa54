import type { Service } from "kubernetes-types/core/v1.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { ImageManager } from "../../lib/images/manager.js";
import { ensureClusterNetwork } from "../../lib/pod/cluster-network.js";
import { applyServices, planService } from "../../lib/services/apply-services.js";
import { engineError, FakeRuntime } from "../harness/fake-runtime.js";

// A Service's proxy (apply-services.ts) is the first container of its run on the cluster network:
// another run's `down` that finds nothing on the network removes it in between. The proxy's
// create then finds no network: the network is made anew and the proxy made again, once, as a
// sandbox does (lib/pod/start/sandbox.ts); any other failure is the Service's error at once.

const IMAGE = "ghcr.io/podrun/service-proxy:0.1.0";
const service: Service = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "api", namespace: "default", uid: "u1" },
  spec: { selector: { app: "api" }, ports: [{ port: 80, targetPort: 8080 }] },
};
// Present already (IfNotPresent): the image's pull is not what is tested here.
const images: ImageManager = { ensureImageExists: (request) => Promise.resolve(request.image) };

async function setup(t: Test) {
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-apply-services-"));
  t.teardown(() => rm(stateDir, { recursive: true, force: true }));
  const runtime = new FakeRuntime({ images: [IMAGE] });
  let ensured = 0;
  runtime.on("ensureNetwork", () => void ensured++);
  const cluster = await ensureClusterNetwork(runtime);
  const applyOf = (wanted: Service) =>
    applyServices(
      { runtime, recorder: { event: () => undefined as never }, images },
      {
        services: [{ service: wanted, source: "app.yaml" }],
        cluster,
        image: IMAGE,
        address: "127.0.0.1",
        stateDir,
        dryRun: false,
      },
    );
  const apply = () => applyOf(service);
  return { runtime, apply, applyOf, ensured: () => ensured };
}

t.test(
  "the network removed, then made twice, by other runs before the proxy's create: found anew each time, the proxy made",
  async (t) => {
    const { runtime, apply, ensured } = await setup(t);
    const failures = ["network network-podrun not found", "network podrun is ambiguous (2 matches found on name)"];
    runtime.failOn("createContainer", () => engineError(failures.shift()!, ["run"]), { times: 2 });
    const [outcome] = await apply();
    t.equal(outcome?.action, "created");
    t.equal(ensured(), 3, "the network ensured again before each try");
    t.same(
      (await runtime.listContainers({ "io.podrun.managed": "true" })).map((c) => [c.name, c.running]),
      [["default_api_SVC", true]],
      "one proxy, running",
    );
  },
);

t.test("another failure of the proxy's create: the Service's error, no second try", async (t) => {
  const { runtime, apply, ensured } = await setup(t);
  let creates = 0;
  runtime.on("createContainer", () => void creates++);
  runtime.failOn("createContainer", engineError("No such image: x", ["run"]), { times: 1 });
  await t.rejects(apply(), { name: "PodrunError", message: /^service\/api: its proxy did not start: .*No such image/ });
  t.equal(creates, 1);
  t.equal(ensured(), 1);
  t.same(await runtime.listContainers({ "io.podrun.managed": "true" }), [], "nothing half made");
});

t.test(
  "a Service made headless: its former proxy goes; a headless one never proxied costs no engine call",
  async (t) => {
    const { runtime, apply, applyOf } = await setup(t);
    await apply();
    let removes = 0;
    runtime.on("removeContainers", () => void removes++);
    const headless: Service = { ...service, spec: { ...service.spec, clusterIP: "None" } };
    const [outcome] = await applyOf(headless);
    t.equal(outcome?.action, "headless");
    t.same(await runtime.listContainers({ "io.podrun.managed": "true" }), [], "the ClusterIP's proxy is gone");
    t.equal(removes, 1);
    await applyOf(headless);
    t.equal(removes, 1, "the next up: its record says it has no proxy, nothing is removed");
  },
);
// What becomes of a Service's proxy at `up`: kept, configured in place (only its routing changed:
// the config is rewritten, the container and its address stay), or made anew (what it publishes
// changed, or it is not running).

const want = { hash: "published-1", specHash: "spec-1" };
const cases: [string, Parameters<typeof planService>[0], string | undefined, ReturnType<typeof planService>][] = [
  ["no proxy yet", undefined, undefined, "create"],
  ["the same Service, running", { running: true, hash: "published-1" }, "spec-1", "keep"],
  ["a routing change (selector, targetPort, affinity…)", { running: true, hash: "published-1" }, "spec-0", "configure"],
  [
    "no stored routing (a proxy of an older podrun, same label)",
    { running: true, hash: "published-1" },
    undefined,
    "configure",
  ],
  [
    "what it publishes changed (node ports, image, address)",
    { running: true, hash: "published-0" },
    "spec-1",
    "create",
  ],
  [
    "a proxy of an older podrun (its label hashed the whole spec)",
    { running: true, hash: undefined },
    undefined,
    "create",
  ],
  ["not running", { running: false, hash: "published-1" }, "spec-1", "create"],
];

t.test("planService", async (t) => {
  for (const [name, existing, stored, expected] of cases) t.equal(planService(existing, stored, want), expected, name);
});
