import type { Service } from "kubernetes-types/core/v1.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import type { ImageManager } from "../../lib/images/manager.js";
import { ensureClusterNetwork } from "../../lib/pod/cluster-network.js";
import { applyServices } from "../../lib/services/apply-services.js";
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
  const apply = () =>
    applyServices(
      { runtime, recorder: { event: () => undefined as never }, images },
      {
        services: [{ service, source: "app.yaml" }],
        cluster,
        image: IMAGE,
        address: "127.0.0.1",
        stateDir,
        dryRun: false,
      },
    );
  return { runtime, apply, ensured: () => ensured };
}

t.test("the network removed by another run before the proxy's create: made anew, the proxy made", async (t) => {
  const { runtime, apply, ensured } = await setup(t);
  runtime.failOn("createContainer", engineError("network network-podrun not found", ["run"]), { times: 1 });
  const [outcome] = await apply();
  t.equal(outcome?.action, "created");
  t.equal(ensured(), 2, "the network ensured again");
  t.same(
    (await runtime.listContainers({ "io.podrun.managed": "true" })).map((c) => [c.name, c.running]),
    [["default_api_SVC", true]],
    "one proxy, running",
  );
});

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
