import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import t from "tap";
import { runCommand } from "../lib/runtime/exec.js";
import { runCli } from "./harness/cli.js";
import { removeManagedContainers } from "./harness/cleanup.js";
import { requirePodEngine } from "./harness/engine.js";

// The examples the README shows, as a CI job runs them: `up --wait`, use the pod, `down`. On both
// engines, one after the other (the examples publish fixed host ports).

const example = (name: string) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url));
const EXAMPLES = [
  { file: "web-sidecar.yaml", pod: "web", containers: 2 },
  { file: "init-data.yaml", pod: "init-data", containers: 1 },
  { file: "db-and-app.yaml", pod: "db-and-app", containers: 2 },
  // A directory: the Secret, the ConfigMaps and the Pod in three files; READY counts the sidecar.
  { file: "ci-stack/", pod: "ci-stack", containers: 3 },
];

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: every example comes up ready, serves, and goes down leaving nothing`, async (t) => {
    if (!(await requirePodEngine(t, runtime))) return;
    const stateDir = await mkdtemp(join(tmpdir(), "podrun-examples-"));
    const env = { PODRUN_STATE_DIR: stateDir, PODRUN_RUNTIME: runtime };
    t.teardown(async () => {
      for (const { pod } of EXAMPLES) await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
      await rm(stateDir, { recursive: true, force: true });
    });

    // The examples publish different ports: they come up side by side, as `up` of each in its own CI step would.
    const ups = await Promise.all(
      EXAMPLES.map(({ file }) => runCli(["up", "--wait", "--timeout", "60s", example(file)], { env })),
    );
    for (const [i, { file, pod, containers }] of EXAMPLES.entries()) {
      const up = ups[i]!;
      t.equal(up.exitCode, 0, `${file}: up --wait: ${up.stderr}`);
      t.match(up.stdout, new RegExp(`pod/${pod}: ready: ${containers}/${containers} containers?`), `${file}: ready`);

      const ps = await runCli(["ps", pod], { env });
      t.match(ps.stdout, new RegExp(`${pod}\\s+${containers}/${containers}\\s+Running`), `${file}: ps`);
    }

    const missing = await runCli(["ps", "web", "no-such-pod"], { env });
    t.equal(missing.exitCode, 1, "ps of a pod that is not there: exit 1");
    t.match(missing.stdout, /^NAME .*\nweb /s, "the pods that are there are still listed");
    t.equal(missing.stderr, 'Error from server (NotFound): pods "no-such-pod" not found\n');

    // The README's main job: the web server answers through its hostPort.
    const page = await fetch("http://127.0.0.1:18080/").then((response) => response.text());
    t.equal(page.trim(), "hello from podrun");
    const app = await runCli(["logs", "init-data"], { env });
    t.match(app.stdout, /app started on schema 42/, "the init container's data reached the app through the emptyDir");
    const db = await runCli(["logs", "db-and-app", "-c", "app"], { env });
    t.equal(db.exitCode, 0, db.stderr);
    // ci-stack: the schema went from a ConfigMap volume through the init container to the
    // database; the app's page is built from envFrom, a fieldRef and a Secret key by $(VAR).
    const schema = await runCli(["logs", "ci-stack", "-c", "db"], { env });
    t.match(schema.stdout, /initialising shop from 2 tables/);
    const shop = await fetch("http://127.0.0.1:18082/").then((response) => response.text());
    t.equal(shop.trim(), "shop on ci-stack talks to 127.0.0.1:5432 as shop");
    const password = await runCommand(runtime, ["exec", "default_ci-stack_app", "cat", "/etc/db/password"]);
    t.equal(password.stdout, 's3cret-$HOME-"quoted"', "the Secret volume's file, as written");
    const eventLog = await readFile(join(stateDir, "events.ndjson"), "utf8");
    t.notMatch(eventLog, /s3cret/, "the password is in no event");

    const downs = await Promise.all(EXAMPLES.map(({ file }) => runCli(["down", example(file)], { env })));
    for (const [i, { file, pod }] of EXAMPLES.entries()) {
      const down = downs[i]!;
      t.equal(down.exitCode, 0, `${file}: down: ${down.stderr}`);
      t.match(down.stdout, new RegExp(`pod/${pod} deleted`));
      const left = await runCommand(runtime, ["ps", "-a", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`]);
      t.equal(left.stdout.trim(), "", `${file}: no container left`);
      const volumes = await runCommand(runtime, [
        "volume",
        "ls",
        "-q",
        "--filter",
        `label=io.kubernetes.pod.name=${pod}`,
      ]);
      t.equal(volumes.stdout.trim(), "", `${file}: no volume left`);
    }
  });
}
