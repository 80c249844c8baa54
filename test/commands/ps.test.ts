import t from "tap";
import { Chalk } from "chalk";
import { formatPodTable, ps } from "../../lib/commands/ps.js";
import { up } from "../../lib/commands/up.js";
import { ExitError } from "../../lib/errors.js";
import { createCommandWorld } from "../harness/command-io.js";
import type { PodRecord } from "../../lib/pod/status/find-pods.js";
import { toPodList } from "../../lib/pod/status/pod-object.js";
import { summarizePod } from "../../lib/pod/status/pod-status.js";
import type { ContainerState } from "../../lib/runtime/types.js";

// The `ps` table and its --json List from fixed engine states (pure), then the command against the
// shared fake engine. The engines themselves:
// ps.e2e.test.ts.

const NOW = Date.parse("2026-01-01T10:05:00Z");

function container(name: string, kind: "init" | "app" | "infra", state: Partial<ContainerState> = {}): ContainerState {
  return {
    id: `${name.padEnd(12, "0")}${"f".repeat(52)}`,
    name: `default_web_${name}`,
    status: "running",
    running: true,
    exitCode: 0,
    startedAt: "2026-01-01T10:00:01Z",
    finishedAt: "",
    createdAt: "2026-01-01T10:00:00Z",
    restartCount: 0,
    labels: { "io.kubernetes.container.name": name, "io.podrun.container.kind": kind },
    image: `registry.local/${name}:1`,
    ...state,
  };
}

const web: PodRecord = {
  name: "web",
  namespace: "default",
  uid: "0b5e9b3c-0000-4000-8000-000000000001",
  infra: container("POD", "infra", { ip: "172.17.0.5", createdAt: "2026-01-01T10:00:00Z" }),
  initContainers: [
    container("migrate", "init", { status: "exited", running: false, finishedAt: "2026-01-01T10:00:02Z" }),
  ],
  appContainers: [
    container("app", "app"),
    container("sidecar", "app", { restartCount: 2, finishedAt: "2026-01-01T10:04:15Z" }),
  ],
};
const job: PodRecord = {
  name: "job-with-a-long-name",
  namespace: "ci",
  uid: "0b5e9b3c-0000-4000-8000-000000000002",
  initContainers: [],
  appContainers: [
    container("run", "app", {
      status: "exited",
      running: false,
      exitCode: 1,
      createdAt: "2026-01-01T07:00:00Z",
      finishedAt: "2026-01-01T07:10:00Z",
    }),
  ],
};

t.test("kubectl's columns, 3 spaces apart; RESTARTS with the time of the last restart", async (t) => {
  const pods = [summarizePod(web, "docker")];
  t.same(formatPodTable(pods, { namespaceColumn: false, wide: false, nowMs: NOW }), [
    "NAME   READY   STATUS    RESTARTS      AGE",
    "web    2/2     Running   2 (45s ago)   5m",
  ]);
});

t.test("-A adds NAMESPACE; -o wide adds IP, CONTAINERS, IMAGES and short CONTAINER IDS", async (t) => {
  const pods = [summarizePod(job, "docker"), summarizePod(web, "docker")];
  t.same(formatPodTable(pods, { namespaceColumn: true, wide: true, nowMs: NOW }), [
    "NAMESPACE   NAME                   READY   STATUS    RESTARTS      AGE    IP           CONTAINERS    IMAGES                                          CONTAINER IDS",
    "ci          job-with-a-long-name   0/1     Error     0             3h5m   <none>       run           registry.local/run:1                            run000000000",
    "default     web                    2/2     Running   2 (45s ago)   5m     172.17.0.5   app,sidecar   registry.local/app:1,registry.local/sidecar:1   app000000000,sidecar00000",
  ]);
});

t.test("with colour on, STATUS is coloured after padding, so the columns stay aligned", async (t) => {
  const color = new Chalk({ level: 1 });
  const lines = formatPodTable([summarizePod(job, "docker"), summarizePod(web, "docker")], {
    namespaceColumn: false,
    wide: false,
    nowMs: NOW,
    color,
  });
  t.equal(lines[1], `job-with-a-long-name   0/1     ${color.red("Error")}     0             3h5m`);
  t.equal(lines[2], `web                    2/2     ${color.green("Running")}   2 (45s ago)   5m`);
  t.same(
    formatPodTable([summarizePod(web, "docker")], {
      namespaceColumn: false,
      wide: false,
      nowMs: NOW,
      color: new Chalk({ level: 0 }),
    })[1],
    "web    2/2     Running   2 (45s ago)   5m",
    "NO_COLOR: plain",
  );
});

t.test("--json: a kind: List of core/v1 Pods, as kubectl get pods -o json shows them", async (t) => {
  const list = toPodList([summarizePod(web, "podman")]);
  t.match(list, { apiVersion: "v1", kind: "List", metadata: { resourceVersion: "" } });
  const [pod] = list.items;
  t.same(pod!.metadata, {
    name: "web",
    namespace: "default",
    uid: "0b5e9b3c-0000-4000-8000-000000000001",
    creationTimestamp: "2026-01-01T10:00:00Z",
  });
  t.same(pod!.spec, {
    initContainers: [{ name: "migrate", image: "registry.local/migrate:1" }],
    containers: [
      { name: "app", image: "registry.local/app:1" },
      { name: "sidecar", image: "registry.local/sidecar:1" },
    ],
  });
  const status = pod!.status!;
  t.equal(status.phase, "Running");
  t.equal(status.podIP, "172.17.0.5");
  t.same(status.podIPs, [{ ip: "172.17.0.5" }]);
  t.same(
    status.conditions?.map((c) => `${c.type}=${c.status}`),
    ["Initialized=True", "Ready=True", "ContainersReady=True"],
  );
  t.same(
    status.initContainerStatuses?.map((s) => [s.name, s.ready, s.state?.terminated?.reason]),
    [["migrate", true, "Completed"]],
  );
  t.same(status.containerStatuses?.[1], {
    name: "sidecar",
    image: "registry.local/sidecar:1",
    imageID: "",
    containerID: `podman://sidecar00000${"f".repeat(52)}`,
    restartCount: 2,
    state: { running: { startedAt: "2026-01-01T10:00:01Z" } },
    lastState: {},
    ready: true,
    started: true,
  });
  t.same(toPodList([]).items, [], "no pod: an empty List, not an error");
});

t.test(
  "ps against the shared fake engine, after a real up: the table, a container that exited, a name not found",
  async (t) => {
    const world = await createCommandWorld(t);
    const manifest =
      "apiVersion: v1\nkind: Pod\nmetadata: { name: web }\nspec:\n  containers: [{ name: app, image: busybox:1.36 }]\n";
    await up({
      files: [await world.manifest("pod.yaml", manifest)],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
    });
    world.nextCommand();
    await ps({ allNamespaces: false, wide: false, json: false, ...world.io });
    t.match(world.stdout.lines(), [/^NAME +READY +STATUS +RESTARTS +AGE$/, /^web +1\/1 +Running +0 +\d+s$/]);
    world.runtime.exit("app", 1);
    world.nextCommand();
    await ps({ allNamespaces: false, wide: false, json: false, ...world.io });
    t.match(world.stdout.lines()[1], /^web +0\/1 +Error +0 +\d+s$/);
    world.nextCommand();
    await t.rejects(ps({ names: ["nope"], allNamespaces: false, wide: false, json: false, ...world.io }), ExitError);
    t.same(world.stderr.lines(), ['Error from server (NotFound): pods "nope" not found']);
  },
);
