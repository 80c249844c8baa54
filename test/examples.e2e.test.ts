import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import t, { type Test } from "tap";
import type { RuntimeName } from "../lib/runtime/detect.js";
import { runCommand } from "../lib/runtime/exec.js";
import { PODRUN_BIN, runCli, type CliResult } from "./harness/cli.js";
import { removeManagedContainers } from "./harness/cleanup.js";
import { engineBlind, requirePodEngine } from "./harness/engine.js";

// The examples the README shows, as a CI job runs them: `up --wait`, use the pod, `down`. On both
// engines, one after the other (the examples publish fixed host ports). The multi-service
// directory runs on docker alone: its stack is the suite's largest `up`, and what it proves of
// Services on top of the one-pod examples (names, headless, NodePort, a Job's wait) runs on both
// engines in test/services/services-stack.ts.

const example = (name: string) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url));
const EXAMPLES = [
  { file: "web-sidecar.yaml", pod: "web", containers: 2 },
  { file: "init-data.yaml", pod: "init-data", containers: 1 },
  { file: "db-and-app.yaml", pod: "db-and-app", containers: 2 },
  // A directory: the Secret, the ConfigMaps and the Pod in three files; READY counts the sidecar.
  { file: "ci-stack/", pod: "ci-stack", containers: 3 },
];

// The multi-service directory, a k8s/ as it is kubectl-applied: a database StatefulSet behind its
// headless Service, a migration Job, an API Deployment of two behind a ClusterIP Service, and a web
// Deployment behind a NodePort one. Its pods are named by their controllers; its proxies by their
// Services; its claim's volume by the claim.
const SHOP = {
  dir: "shop/",
  owners: ["StatefulSet/db", "Job/migrate", "Deployment/api", "Deployment/web"],
  proxies: ["default_api_SVC", "default_web_SVC"],
  volume: "default_data-db-0",
  page: "http://127.0.0.1:30808/",
};

async function removeShop(runtime: RuntimeName): Promise<void> {
  // By owner and namespace: another test file's StatefulSet/db may be running in its own namespace.
  for (const owner of SHOP.owners)
    await removeManagedContainers(runtime, { "io.podrun.owner": owner, "io.kubernetes.pod.namespace": "default" });
  const force = runtime === "podman" ? ["rm", "-f", "-t", "0"] : ["rm", "-f"];
  await runCommand(runtime, [...force, ...SHOP.proxies], { reject: false });
  await runCommand(runtime, ["volume", "rm", "-f", SHOP.volume], { reject: false });
}

for (const runtime of engineBlind("docker")) {
  t.test(`${runtime}: every example comes up ready, serves, and goes down leaving nothing`, async (t) => {
    if (!(await requirePodEngine(t, runtime))) return;
    const stateDir = await mkdtemp(join(tmpdir(), "podrun-examples-"));
    const env = { PODRUN_STATE_DIR: stateDir, PODRUN_RUNTIME: runtime };
    t.teardown(async () => {
      for (const { pod } of EXAMPLES) await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
      await removeShop(runtime);
      await rm(stateDir, { recursive: true, force: true });
    });

    // The examples publish different ports: they come up side by side, as `up` of each in its own CI step would.
    const up = (file: string) => runCli(["up", "--wait", "--timeout", "60s", example(file)], { env });
    const withShop = runtime === "docker";
    const [shopUp, ...ups] = await Promise.all([
      withShop ? up(SHOP.dir) : undefined,
      ...EXAMPLES.map(({ file }) => up(file)),
    ]);
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
    if (shopUp) await checkShop(t, runtime, env, shopUp);
  });
}

/** shop/: every pod Ready in the files' order, the migration Job Complete, the pages served, and `down --volumes`. */
async function checkShop(t: Test, runtime: RuntimeName, env: Record<string, string>, shopUp: CliResult) {
  t.equal(shopUp.exitCode, 0, `shop/: up --wait: ${shopUp.stderr}`);
  t.match(shopUp.stdout, /service\/web created \(NodePort [\d.]+, 80:30808\/TCP on 127\.0\.0\.1\)/);
  // The pods start together; each probe has its own period, so the order of their "ready" lines is
  // not the order of their dependencies (web can pass its probe before db-0's next tick).
  for (const pod of [/db-0/, /api-[a-z0-9]+-[a-z0-9]{5}/, /web-[a-z0-9]+-[a-z0-9]{5}/])
    t.match(shopUp.stdout, new RegExp(`pod/${pod.source}: ready: 1/1 container`), `${pod.source} ready`);
  t.match(shopUp.stdout, /job\/migrate: Complete: 1 of 1 succeeded/);
  const apiPods = [...shopUp.stdout.matchAll(/pod\/(api-[a-z0-9]+-[a-z0-9]{5}): ready: 1\/1 container/g)].map(
    (m) => m[1]!,
  );
  t.equal(apiPods.length, 2, "both api replicas ready");
  const migrate = await runCli(["logs", "job/migrate"], { env });
  t.match(migrate.stdout, /db-0\.db: OK schema none -> 2\nmigrated to schema version 2/, "the Job reached db-0.db");
  // From the host through the NodePort to web, web to api by its Service name, api to db-0.db:
  // each page names the web pod, the api replica that served it and the db's schema (the
  // migration's). The api Service spreads the connections: both replicas answer.
  const served = new Set<string>();
  for (let i = 0; i < 30 && served.size < 2; i++) {
    const response = await fetch(SHOP.page);
    const text = await response.text();
    const page = /^shop page from web-\S+\napi reply from (api-\S+): db-0\.db:5432 says "db-0 schema 2"\n$/.exec(text);
    if (response.status !== 200 || !page) {
      t.fail(`shop/: page ${i}: ${response.status} ${text}`);
      break;
    }
    served.add(page[1]!);
  }
  t.same([...served].sort(), [...apiPods].sort(), "both api replicas served pages through web");

  const shopDown = await runCli(["down", "--volumes", example(SHOP.dir)], { env });
  t.equal(shopDown.exitCode, 0, `shop/: down: ${shopDown.stderr}`);
  t.match(
    shopDown.stdout,
    /persistentvolumeclaim\/data-db-0 deleted[^]*service\/db deleted\nservice\/api deleted\nservice\/web deleted/,
    "the headless Service went with its pod, the others with their proxies",
  );
  for (const owner of SHOP.owners) {
    const left = await runCommand(runtime, [
      "ps",
      "-a",
      "-q",
      "--filter",
      `label=io.podrun.owner=${owner}`,
      "--filter",
      "label=io.kubernetes.pod.namespace=default",
    ]);
    t.equal(left.stdout.trim(), "", `shop/: no container of ${owner} left`);
  }
  for (const proxy of SHOP.proxies) {
    const left = await runCommand(runtime, ["ps", "-a", "-q", "--filter", `name=^${proxy}$`]);
    t.equal(left.stdout.trim(), "", `shop/: no proxy ${proxy} left`);
  }
  const claim = await runCommand(runtime, ["volume", "inspect", SHOP.volume], { reject: false });
  t.not(claim.exitCode, 0, "shop/: the claim's volume is gone (down --volumes)");
}

// The CI script of examples/kind-ci, written for kind and kubectl, run with the binary's name
// changed and nothing else: apply, rollout status, wait (pods, a Job), exec, port-forward, logs -l,
// delete. Its verbs are proven one by one on both engines in test/commands/kubectl-verbs.ts.
for (const runtime of engineBlind("docker")) {
  t.test(`${runtime}: a kind + kubectl CI script runs unchanged with KUBECTL=podrun`, async (t) => {
    if (!(await requirePodEngine(t, runtime))) return;
    const script = example("kind-ci/ci.sh");
    t.notMatch(await readFile(script, "utf8"), /^[^#]*podrun/m, "the script names kubectl's verbs only");
    const stateDir = await mkdtemp(join(tmpdir(), "podrun-kind-ci-"));
    t.teardown(async () => {
      await removeManagedContainers(runtime, { "io.podrun.owner": "Deployment/kind-ci-api" });
      await removeManagedContainers(runtime, { "io.podrun.owner": "Job/kind-ci-migrate" });
      await rm(stateDir, { recursive: true, force: true });
    });
    const port = 20000 + Math.floor(Math.random() * 20000);
    const result = await runCommand("sh", [script], {
      reject: false,
      timeoutMs: 240_000,
      env: {
        KUBECTL: `${process.execPath} ${PODRUN_BIN}`,
        PORT: String(port),
        PODRUN_RUNTIME: runtime,
        PODRUN_STATE_DIR: stateDir,
        NO_COLOR: "1",
      },
    });
    t.equal(result.exitCode, 0, result.stderr);
    t.match(result.stdout, /deployment "kind-ci-api" successfully rolled out/);
    t.match(result.stdout, /job\.batch\/kind-ci-migrate condition met/);
    t.match(result.stdout, /ok from kind-ci-api-/, "through exec and through the port-forward");
    t.match(result.stdout, /\[pod\/kind-ci-api-[^/]+\/api\] listening/, "logs -l --prefix");
    t.match(result.stdout, /ci: passed/);
    const left = await runCommand(runtime, ["ps", "-aq", "--filter", "label=io.podrun.owner=Deployment/kind-ci-api"]);
    t.equal(left.stdout.trim(), "", "delete -f removed the pods");
  });
}

// The CI script of examples/build-ci: the engine builds the application's image, and podrun runs
// the team's manifests with it in place of the released image (`--image`), tests it through exec,
// and tears it down. On both engines: `docker build`, then `podman build`.
for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: an image built in the job runs by up --image, as examples/build-ci/ci.sh does it`, async (t) => {
    if (!(await requirePodEngine(t, runtime))) return;
    const stateDir = await mkdtemp(join(tmpdir(), "podrun-build-ci-"));
    const revision = `r${Date.now()}`;
    t.teardown(async () => {
      await removeManagedContainers(runtime, { "io.podrun.owner": "Deployment/build-ci-app" });
      await runCommand(runtime, ["rmi", "-f", `localhost/build-ci-app:ci-${revision}`], { reject: false });
      await rm(stateDir, { recursive: true, force: true });
    });
    const result = await runCommand("sh", [example("build-ci/ci.sh")], {
      reject: false,
      timeoutMs: 240_000,
      env: {
        ENGINE: runtime,
        REVISION: revision,
        PODRUN: `${process.execPath} ${PODRUN_BIN}`,
        PODRUN_STATE_DIR: stateDir,
        NO_COLOR: "1",
      },
    });
    t.equal(result.exitCode, 0, result.stderr);
    t.match(result.stdout, `app built at ${revision}`, "the running app is this job's build");
    t.match(result.stdout, /ci: passed/);
    const left = await runCommand(runtime, ["ps", "-aq", "--filter", "label=io.podrun.owner=Deployment/build-ci-app"]);
    t.equal(left.stdout.trim(), "", "down --image found the pods the override made");
    const image = await runCommand(runtime, ["image", "inspect", `localhost/build-ci-app:ci-${revision}`], {
      reject: false,
    });
    t.not(image.exitCode, 0, "the script removed its build");
  });
}
