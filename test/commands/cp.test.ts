import t from "tap";
import { cp, parseRemotePath } from "../../lib/commands/cp.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { createCommandWorld, upManifest } from "../harness/command-io.js";

// `podrun cp`'s arguments as kubectl reads them (a table), and the container it copies from
// against the shared fake engine. The files themselves, on the engines: kubectl-verbs.ts.

t.test("[NAMESPACE/]POD:PATH, or a local path", async (t) => {
  const cases: Array<[string, ReturnType<typeof parseRemotePath>]> = [
    ["web:/tmp/a", { pod: "web", path: "/tmp/a" }],
    ["ci/web:/tmp/a", { namespace: "ci", pod: "web", path: "/tmp/a" }],
    ["web:relative/dir", { pod: "web", path: "relative/dir" }],
    ["./web:1", undefined],
    ["/tmp/web:1", undefined],
    ["report.xml", undefined],
    [":x", undefined],
  ];
  for (const [arg, expected] of cases) t.same(parseRemotePath(arg), expected, arg);
  t.throws(() => parseRemotePath("web:"), new UsageError("filepath can not be empty"));
});

t.test("the default container as exec picks it; kubectl's errors", async (t) => {
  const world = await createCommandWorld(t);
  await upManifest(
    world,
    "pod.yaml",
    `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
    - {name: app, image: busybox:1.36}
    - {name: sidecar, image: busybox:1.36}
`,
  );
  world.nextCommand();
  await cp({ source: "web:/etc/hostname", destination: "./hostname", ...world.io });
  t.same(world.stderr.lines(), ['Defaulted container "app" out of: app, sidecar']);
  t.equal(world.runtime.calls.at(-1), "copyFiles app out /etc/hostname");
  await cp({ source: "./fixtures", destination: "web:/srv", container: "sidecar", ...world.io });
  t.equal(world.runtime.calls.at(-1), "copyFiles sidecar into /srv");
  await t.rejects(
    cp({ source: "a", destination: "b", ...world.io }),
    new UsageError("one of src or dest must be a remote file specification"),
  );
  await t.rejects(
    cp({ source: "web:/a", destination: "web:/b", ...world.io }),
    new UsageError("one of src or dest must be a local file specification"),
  );
  world.nextCommand();
  await t.rejects(cp({ source: "db:/a", destination: "b", ...world.io }), ExitError);
  t.same(world.stderr.lines(), ['Error from server (NotFound): pods "db" not found']);
});
