import t, { type Test } from "tap";
import { down } from "../../lib/commands/down.js";
import { events } from "../../lib/commands/events.js";
import { logs } from "../../lib/commands/logs.js";
import { ps } from "../../lib/commands/ps.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { createCommandWorld, upManifest, type CommandWorld } from "../harness/command-io.js";

// `-l` and `--field-selector` on ps, logs, events and down, against the shared fake engine after
// a real `up` of three labelled pods. The grammar itself: test/manifest/selectors.test.ts; the
// real engines: selectors.e2e.test.ts.

const pod = (name: string, labels: string, image = "busybox:1.36") => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels: {${labels}}
spec:
  containers:
    - name: app
      image: ${image}
`;

const PODS = [
  pod("api-1", "app: api, tier: backend"),
  pod("api-2", "app: api, tier: backend, canary: 'true'"),
  pod("web", "app: web, tier: frontend"),
].join("---\n");

async function setup(t: Test): Promise<CommandWorld> {
  const world = await createCommandWorld(t);
  world.runtime.script("app", { logs: Array.from({ length: 12 }, (_, i) => `line ${i + 1}`) });
  await upManifest(world, "pods.yaml", PODS);
  return world;
}

const names = (world: CommandWorld) =>
  world.stdout
    .lines()
    .slice(1)
    .map((line) => line.split(/\s+/)[0]);

t.test("ps -l: the pods whose labels match, in kubectl's grammar; --field-selector on status.phase", async (t) => {
  const world = await setup(t);
  const list = async (extra: { selector?: string; fieldSelector?: string; names?: string[] }) => {
    world.nextCommand();
    await ps({ allNamespaces: false, wide: false, json: false, ...world.io, ...extra });
  };
  await list({ selector: "app=api" });
  t.same(names(world), ["api-1", "api-2"]);
  await list({ selector: "tier in (frontend),app" });
  t.same(names(world), ["web"]);
  await list({ selector: "app=api,!canary" });
  t.same(names(world), ["api-1"]);
  await list({ selector: "app notin (api)" });
  t.same(names(world), ["web"]);
  await list({ selector: "app=db" });
  t.same(world.stdout.lines(), []);
  t.same(world.stderr.lines(), ["No resources found in default namespace."]);
  await list({ fieldSelector: "status.phase=Running,metadata.name!=web" });
  t.same(names(world), ["api-1", "api-2"]);
  await list({ fieldSelector: "status.phase=Pending" });
  t.same(world.stderr.lines(), ["No resources found in default namespace."]);

  world.nextCommand();
  await ps({ allNamespaces: false, wide: false, json: true, selector: "canary", ...world.io });
  const list2 = JSON.parse(world.stdout.text) as { items: { metadata: { labels: Record<string, string> } }[] };
  t.same(
    list2.items[0]!.metadata.labels,
    { app: "api", canary: "true", tier: "backend" },
    "the pod's labels in -o json",
  );

  await t.rejects(
    list({ selector: "app=api", names: ["web"] }),
    new UsageError("name cannot be provided when a selector is specified"),
  );
  await t.rejects(list({ selector: "app in" }), /unable to parse label selector "app in": found '', expected: '\('/);
  await t.rejects(list({ fieldSelector: "spec.nodeName=x" }), /field label not supported: spec\.nodeName/);
});

t.test("logs -l: each selected pod's last 10 lines unless --tail; --prefix; --max-log-requests", async (t) => {
  const world = await setup(t);
  const read = async (extra: Parameters<typeof logs>[0] extends infer O ? Partial<O> : never) => {
    world.nextCommand();
    await logs({ follow: false, timestamps: false, allContainers: false, prefix: false, ...world.io, ...extra });
  };
  await read({ selector: "app=api" });
  t.equal(world.stdout.lines().length, 20, "10 lines of each of the two pods");
  t.equal(world.stdout.lines()[0], "line 3", "no prefix without --prefix, as kubectl");
  await read({ selector: "app=api", prefix: true, tail: 1 });
  t.same(world.stdout.lines(), ["[pod/api-1/app] line 12", "[pod/api-2/app] line 12"]);
  await read({ selector: "app=db" });
  t.same(world.stderr.lines(), ["No resources found in default namespace."]);

  const error = await read({ selector: "tier", follow: true, maxLogRequests: 2 }).catch((e: unknown) => e);
  t.type(error, ExitError);
  t.same(world.stderr.lines(), [
    "error: you are attempting to follow 3 log streams, but maximum allowed concurrency is 2, use --max-log-requests to increase the limit",
  ]);
  await t.rejects(
    read({ selector: "app", pod: "web" }),
    new UsageError("only a selector (-l) or a POD name is allowed"),
  );
  await t.rejects(read({}), new UsageError("expected POD or TYPE/NAME is a required argument for the logs command"));
});

t.test("events -l: the events of the selected pods only", async (t) => {
  const world = await setup(t);
  world.nextCommand();
  await events({ selector: "app=web", wide: false, json: true, watch: false, ...world.io });
  const objects = new Set(
    world.stdout.lines().map((line) => (JSON.parse(line) as { involvedObject: { name: string } }).involvedObject.name),
  );
  t.same([...objects], ["web"]);
  await t.rejects(
    events({ selector: "app", pod: "web", wide: false, json: true, watch: false, ...world.io }),
    new UsageError("only a selector (-l) or a POD name is allowed"),
  );
});

t.test("down -l: the selected pods go, the others stay", async (t) => {
  const world = await setup(t);
  world.nextCommand();
  await down({ targets: [], all: false, json: false, selector: "app=api", ...world.io });
  world.nextCommand();
  await ps({ allNamespaces: false, wide: false, json: false, ...world.io });
  t.same(names(world), ["web"]);
  world.nextCommand();
  await down({ targets: [], all: false, json: false, selector: "app=api", ...world.io });
  t.same(world.stderr.lines(), ["No resources found in default namespace."], "nothing left to select: exit 0");
  await t.rejects(
    down({ targets: [], all: true, json: false, selector: "app", ...world.io }),
    new UsageError("cannot set --all and --selector at the same time"),
  );
  await t.rejects(
    down({ targets: ["web"], all: false, json: false, selector: "app", ...world.io }),
    new UsageError("name cannot be provided when a selector is specified"),
  );
});
