// Parsing `inspect` output of docker and podman (captured) and nerdctl (written from its
// dockercompat types), matching images back to references, and merging timestamped logs.
import t from "tap";
import { readFileSync } from "node:fs";
import { DIALECTS, isOnlyNotFound } from "../../lib/runtime/dialects.js";
import {
  fillPeerAddresses,
  listUnresolvedPeers,
  matchImages,
  parseJsonObjects,
  toContainerState,
} from "../../lib/runtime/inspect.js";
import { mergeTimestampedLogs } from "../../lib/runtime/logs.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/inspect/${name}`, import.meta.url), "utf8");
const BUSYBOX = "127.0.0.1:5100/podrun-test/busybox:1.36";
const PAUSE = "registry.k8s.io/pause:3.10";
const BUSYBOX_ID = "sha256:64b0eddb10789663be716bf4b32ddbbd144dd0ea652274a37484ca981a7d665b";

for (const runtime of ["docker", "podman", "nerdctl"] as const) {
  t.test(`${runtime}: containers, with the pod's address for a joined container`, async (t) => {
    const dialect = DIALECTS[runtime];
    const inspected = parseJsonObjects(fixture(`${runtime}-containers.json`)).map((c) => toContainerState(dialect, c));
    const states = fillPeerAddresses(inspected, []);
    t.same(listUnresolvedPeers(inspected), [], "the peer is among the inspected");
    const infra = states.find((s) => s.labels["io.kubernetes.container.name"] === "POD");
    const app = states.find((s) => s.name === "fx-app");
    t.match(infra, {
      running: true,
      status: "running",
      exitCode: 0,
      finishedAt: "",
      image: PAUSE,
      ip: /^\d+\.\d+\.\d+\.\d+$/,
    });
    t.match(app, {
      running: false,
      status: "exited",
      exitCode: 3,
      image: BUSYBOX,
      startedAt: /^20\d\d-/,
      finishedAt: /^20\d\d-/,
    });
    t.equal(app?.ip, infra?.ip, "the app reports the sandbox's address");
    t.same(
      app?.labels,
      { "io.kubernetes.container.name": "app", "io.kubernetes.pod.name": "fx", "io.podrun.managed": "true" },
      "only the user's labels",
    );
    t.match(infra?.id, /^[0-9a-f]{64}$/);
    t.notMatch(app?.name, /^\//, "no leading slash");
    if (runtime !== "nerdctl") {
      const created = states.find((s) => s.name === "fx-new");
      t.match(created, { status: "created", running: false, startedAt: "", finishedAt: "" }, 'Go\'s zero time is ""');
      t.ok(
        isOnlyNotFound(dialect, fixture(`${runtime}-containers.stderr.txt`)),
        "the absent one is reported as not found",
      );
    }
  });

  t.test(`${runtime}: images matched back to the references as written`, async (t) => {
    const dialect = DIALECTS[runtime];
    const images = parseJsonObjects(fixture(`${runtime}-images.json`));
    t.ok(isOnlyNotFound(dialect, fixture(`${runtime}-images.stderr.txt`)), "only not-found errors (warnings aside)");
    if (runtime === "nerdctl") {
      for (const ref of [
        "busybox",
        "busybox:latest",
        "docker.io/library/busybox:latest",
        "index.docker.io/library/busybox",
        "busybox@sha256:0f6826336050cdc6d6b8d00b3394a8d751dbcf5f8c3ad75dd8143cffe82a6568",
      ]) {
        t.same(matchImages(dialect, [ref, "other:1"], images).get(ref), { id: BUSYBOX_ID, size: 2167176 }, ref);
      }
      return;
    }
    const found = matchImages(dialect, [BUSYBOX, "nope:1", PAUSE], images);
    t.same([...found.keys()], [BUSYBOX, PAUSE]);
    t.equal(found.get(BUSYBOX)?.id, BUSYBOX_ID, "IDs carry sha256: (podman prints them bare)");
    t.ok((found.get(PAUSE)?.size ?? 0) > 0);
  });
}

t.test("image naming differences between engines", async (t) => {
  const image = (tags: string[], id = "1".repeat(64), digests: string[] = []) => ({
    Id: `sha256:${id}`,
    RepoTags: tags,
    RepoDigests: digests,
    Size: 10,
  });
  const { docker, podman } = DIALECTS;
  t.ok(
    matchImages(docker, ["busybox:latest"], [image(["busybox:latest"])]).has("busybox:latest"),
    "docker keeps short names",
  );
  t.ok(
    matchImages(podman, ["busybox:latest"], [image(["docker.io/library/busybox:latest"])]).has("busybox:latest"),
    "podman qualifies them",
  );
  t.ok(
    matchImages(podman, ["team/app:1"], [image(["localhost/team/app:1"])]).has("team/app:1"),
    "podman's localhost/ for local short names",
  );
  t.ok(matchImages(docker, ["docker.io/library/redis:7"], [image(["redis:7"])]).has("docker.io/library/redis:7"));
  const digest = `sha256:${"a".repeat(64)}`;
  t.ok(
    matchImages(docker, [`redis:7@${digest}`], [image([], undefined, [`redis@${digest}`])]).has(`redis:7@${digest}`),
    "tag and digest: by digest",
  );
  t.ok(matchImages(docker, [`sha256:${"1".repeat(64)}`], [image([])]).has(`sha256:${"1".repeat(64)}`), "by image ID");

  const two = [image(["a:1"], "1".repeat(64)), image(["elsewhere/b:1"], "2".repeat(64))];
  const byPosition = matchImages(podman, ["a:1", "b:1"], two);
  t.equal(
    byPosition.get("b:1")?.id,
    `sha256:${"2".repeat(64)}`,
    "all found: position settles a name the engine resolved its own way",
  );
  t.notOk(matchImages(podman, ["a:1", "b:1", "c:1"], two).has("b:1"), "some absent: no guessing by position");
});

t.test("parseJsonObjects: arrays, concatenated values, warnings around them", async (t) => {
  t.same(parseJsonObjects('[{"a":1},{"a":2}]'), [{ a: 1 }, { a: 2 }]);
  t.same(parseJsonObjects('WARN[0000] odd [thing\n[\n {"a":"]"}\n]\n[{"a":2}]\n'), [{ a: "]" }, { a: 2 }]);
  t.same(parseJsonObjects('{"a":1}\n{"a":"x\\"]"}\n'), [{ a: 1 }, { a: 'x"]' }]);
  t.same(parseJsonObjects("[]"), []);
  t.same(parseJsonObjects(""), []);
});

t.test("mergeTimestampedLogs puts stdout and stderr back in order", async (t) => {
  const stdout =
    "2026-11-30T04:20:04.391228914Z out1\n2026-11-30T04:20:04.5Z out2\n2026-11-30T04:20:04.620652188Z partial";
  const stderr = "2026-11-30T04:20:04.40000001Z err1\n2026-11-30T04:20:04.420652188Z err2";
  t.equal(
    mergeTimestampedLogs(stdout, stderr),
    "out1\nerr1\nerr2\nout2\npartial",
    "fractions of any length compare as times",
  );
  t.equal(mergeTimestampedLogs("2026-11-30T04:20:04Z a\ncontinued\n2026-11-30T04:20:05Z b", ""), "a\ncontinued\nb");
  t.equal(mergeTimestampedLogs("", ""), "");
});

t.test("an image's USER is read from Config.User (for runAsNonRoot); empty means none", async (t) => {
  const image = (user: string) => ({
    Id: `sha256:${"a".repeat(64)}`,
    Size: 1,
    RepoTags: ["x.test/app:1"],
    Config: { User: user },
  });
  for (const dialect of [DIALECTS.docker, DIALECTS.podman, DIALECTS.nerdctl]) {
    t.equal(
      matchImages(dialect, ["x.test/app:1"], [image("1000:1000")]).get("x.test/app:1")?.user,
      "1000:1000",
      dialect.name,
    );
    t.equal(matchImages(dialect, ["x.test/app:1"], [image("")]).get("x.test/app:1")?.user, undefined);
  }
});

t.test(
  "restart count: the engine's restarts plus the kubelet's restartCount label of a container made anew after a liveness failure",
  async (t) => {
    const container = (labels: Record<string, string> | null, restarts: number) => ({
      Id: "c1",
      Name: "/x",
      State: { Status: "running", Running: true },
      RestartCount: restarts,
      Config: { Labels: labels },
    });
    t.equal(
      toContainerState(DIALECTS.docker, container(null, 2)).state.restartCount,
      2,
      "podman's null labels: the engine's count alone",
    );
    t.equal(
      toContainerState(DIALECTS.docker, container({ "io.kubernetes.container.restartCount": "3" }, 0)).state
        .restartCount,
      3,
    );
    t.equal(
      toContainerState(DIALECTS.podman, container({ "io.kubernetes.container.restartCount": "3" }, 2)).state
        .restartCount,
      5,
      "then crashes restarted by the engine",
    );
    t.equal(
      toContainerState(DIALECTS.docker, container({ "io.kubernetes.container.restartCount": "x" }, 1)).state
        .restartCount,
      1,
      "a label that is not a number counts for nothing",
    );
  },
);

t.test(
  "the named volumes a container mounts (ps --volumes: which pods use a claim), binds and tmpfs left out",
  async (t) => {
    // As docker 20.10 and podman 4.3 print them; nerdctl's MountPoint has the same Type and Name.
    const mounts = [
      {
        Type: "volume",
        Name: "default_data",
        Source: "/var/lib/docker/volumes/default_data/_data",
        Destination: "/data",
        Driver: "local",
        Mode: "z",
        RW: true,
        Propagation: "",
      },
      { Type: "bind", Source: "/tmp", Destination: "/host", Mode: "", RW: true, Propagation: "rprivate" },
      { Type: "tmpfs", Source: "", Destination: "/cache", Mode: "", RW: true, Propagation: "" },
    ];
    for (const runtime of ["docker", "podman", "nerdctl"] as const) {
      t.same(toContainerState(DIALECTS[runtime], { Id: "x", Mounts: mounts }).state.volumes, ["default_data"], runtime);
    }
    t.equal(
      toContainerState(DIALECTS.docker, { Id: "x", Mounts: mounts.slice(1) }).state.volumes,
      undefined,
      "none: no field",
    );
    t.equal(toContainerState(DIALECTS.podman, { Id: "x", Mounts: null }).state.volumes, undefined);
  },
);
