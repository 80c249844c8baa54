import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { syncServiceEndpoints } from "../../lib/services/endpoint-sync.js";
import { SERVICE_PROXY_CONFIG_FILE } from "../../lib/services/proxy-config.js";
import {
  LABEL_SERVICE_CONFIG_DIR,
  LABEL_SERVICE_ROUTING,
  type ServiceRouting,
} from "../../lib/services/service-proxy.js";
import type { ContainerState } from "../../lib/runtime/types.js";
import { FakeRuntime } from "../harness/fake-runtime.js";

// The endpoints' sync after a run's pods (endpoint-sync.ts): every proxy on the engine gets the
// config of the pods there now, in the directory its labels name; a directory that is gone (its
// Service's `down` removed it after listing) is not made again.

const routing: ServiceRouting = {
  namespace: "default",
  name: "api",
  selector: { app: "api" },
  ports: [{ protocol: "TCP", port: 80, targetPort: 8080 }],
  sessionAffinity: "None",
};

const proxy = (configDir: string): ContainerState => ({
  id: "proxy-id",
  name: "default_api_SVC",
  status: "running",
  running: true,
  exitCode: 0,
  startedAt: "",
  finishedAt: "",
  createdAt: "",
  restartCount: 0,
  labels: {
    "io.podrun.managed": "true",
    [LABEL_SERVICE_ROUTING]: JSON.stringify(routing),
    [LABEL_SERVICE_CONFIG_DIR]: configDir,
  },
  image: "ghcr.io/podrun/service-proxy:0.1.0",
});

t.test("a proxy's config is written into its directory", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-sync-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const configDir = join(dir, "services", "docker", "default_api", "proxy");
  await mkdir(configDir, { recursive: true });
  const written = await syncServiceEndpoints(new FakeRuntime(), [proxy(configDir)]);
  t.same(
    written.map((c) => c.name),
    ["default_api_SVC"],
    "written",
  );
  const config = JSON.parse(await readFile(join(configDir, SERVICE_PROXY_CONFIG_FILE), "utf8")) as { service: string };
  t.equal(config.service, "default/api");
  t.same(await syncServiceEndpoints(new FakeRuntime(), [proxy(configDir)]), [], "unchanged: not rewritten");
});

t.test("a proxy whose directory is gone (its Service went down after the listing) gets none made again", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-sync-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const serviceDir = join(dir, "services", "docker", "default_api");
  t.same(await syncServiceEndpoints(new FakeRuntime(), [proxy(join(serviceDir, "proxy"))]), [], "nothing written");
  t.notOk(existsSync(serviceDir), "no directory left behind");
});
