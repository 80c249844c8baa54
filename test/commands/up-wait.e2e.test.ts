import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import t, { type Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { PODRUN_BIN, runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { engineBlind, BUSYBOX, requireEngine, requireImage } from "../harness/engine.js";

// `podrun up --wait` end to end on the real engines: probes that really fail and then pass
// (httpGet from the host to the pod's IP, exec through the engine, tcpSocket), a pod that never
// gets ready, a container that exits, and Ctrl-C while waiting.

interface KubeEvent {
  type: string;
  reason: string;
  message: string;
  involvedObject: { fieldPath?: string };
}

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;
const events = (stdout: string): KubeEvent[] =>
  stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as KubeEvent);
const lastLine = (text: string) => text.trimEnd().split("\n").at(-1) ?? "";
const podYaml = (name: string, containers: string, restartPolicy = "Never") =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  restartPolicy: ${restartPolicy}\n  terminationGracePeriodSeconds: 1\n  containers:\n${containers}`;

async function setup(t: Test, runtime: RuntimeName, prefix: string) {
  const engine = await requireEngine(t, runtime);
  if (
    !engine ||
    !(await requireImage(t, runtime, BUSYBOX)) ||
    !(await requireImage(t, runtime, "registry.k8s.io/pause:3.10"))
  )
    return undefined;
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-wait-state-"));
  const dir = await mkdtemp(join(tmpdir(), "podrun-wait-"));
  t.teardown(() => Promise.all([stateDir, dir].map((path) => rm(path, { recursive: true, force: true }))));
  const name = unique(prefix);
  t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
  const file = join(dir, `${name}.yaml`);
  const env = { PODRUN_STATE_DIR: stateDir };
  return {
    name,
    file,
    env,
    write: (yaml: string) => writeFile(file, yaml),
    up: (extra: string[]) => runCli(["up", "--runtime", runtime, "--wait", ...extra, file], { env }),
    running: async () =>
      (await runCommand(runtime, ["ps", "-q", "--filter", `label=io.kubernetes.pod.name=${name}`])).stdout
        .split("\n")
        .filter(Boolean),
    all: async () =>
      (await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${name}`])).stdout
        .split("\n")
        .filter(Boolean),
    exec: (container: string, command: string[]) =>
      runCommand(runtime, ["exec", `default_${name}_${container}`, ...command], { reject: false }),
  };
}

// The two engines go side by side (each one's cases in order): the waits are mostly idle time.
t.jobs = 2;
for (const runtime of engineBlind("docker"))
  t.test(runtime, { buffered: true }, async (t) => {
    t.test(
      `${runtime}: --wait returns only once an httpGet readiness probe passes on a server that starts late`,
      async (t) => {
        const env = await setup(t, runtime, "late");
        if (!env) return;
        await env.write(
          podYaml(
            env.name,
            `    - name: web
      image: ${BUSYBOX}
      command: ["sh", "-c", "echo starting; sleep 3; mkdir -p /www && echo ok > /www/healthz && exec httpd -f -p 8080 -h /www"]
      ports:
        - name: http
          containerPort: 8080
      readinessProbe:
        httpGet:
          path: /healthz
          port: http
        periodSeconds: 1
    - name: sidecar
      image: ${BUSYBOX}
      command: ["sleep", "600"]
`,
          ),
        );
        const started = Date.now();
        const r = await env.up([]); // plain lines: what a CI log shows
        t.equal(r.exitCode, 0, r.stderr);
        t.ok(Date.now() - started >= 3000, "not before the server answers");
        const lines = r.stdout.trimEnd().split("\n");
        t.match(lastLine(r.stdout), new RegExp(`^pod/${env.name}: ready: 2/2 containers \\(\\d+\\.\\d+s\\)$`));
        const unhealthy = lines.filter((line) => /Warning +Unhealthy +pod\/.*\[web\]/.test(line));
        t.ok(unhealthy.length >= 1, "Unhealthy events while the server was not up");
        t.match(
          unhealthy[0],
          /Readiness probe failed: Get "http:\/\/[\d.]+:8080\/healthz": dial tcp [\d.]+:8080: connect: connection refused$/,
        );
        t.ok(
          lines.findIndex((line) => line.includes("Unhealthy")) < lines.length - 1,
          "they come before the ready line",
        );
        t.notMatch(r.stdout, "\u001b[", "no cursor movement or colour outside a terminal");
        // Ready means ready: the page answers at once.
        const page = await env.exec("sidecar", ["wget", "-q", "-O-", "http://127.0.0.1:8080/healthz"]);
        t.equal(page.stdout.trim(), "ok");
      },
    );

    t.test(`${runtime}: exec startup and readiness probes, and a tcpSocket probe`, async (t) => {
      const env = await setup(t, runtime, "exec-tcp");
      if (!env) return;
      await env.write(
        podYaml(
          env.name,
          // Each probe fails on its first attempt and marks it, so it passes on the next: the order of
          // events depends on the probes alone, not on how fast a loaded machine runs the container.
          `    - name: worker
      image: ${BUSYBOX}
      command: ["sleep", "600"]
      startupProbe:
        exec:
          command: ["sh", "-c", "test -f /tmp/started || { touch /tmp/started; exit 1; }"]
        periodSeconds: 1
        timeoutSeconds: 10
        failureThreshold: 30
      readinessProbe:
        exec:
          command: ["sh", "-c", "cat /tmp/ready || { echo ok > /tmp/ready; exit 1; }"]
        periodSeconds: 1
        timeoutSeconds: 10
    - name: db
      image: ${BUSYBOX}
      command: ["sh", "-c", "sleep 4; exec httpd -f -p 5432"]
      readinessProbe:
        tcpSocket:
          port: 5432
        periodSeconds: 1
`,
        ),
      );
      const r = await env.up(["--json"]);
      t.equal(r.exitCode, 0, r.stderr);
      const list = events(r.stdout);
      const of = (container: string) =>
        list
          .filter((e) => e.reason === "Unhealthy" && e.involvedObject.fieldPath === `spec.containers{${container}}`)
          .map((e) => e.message);
      t.same(
        of("worker"),
        [
          'Startup probe failed: command "sh -c test -f /tmp/started || { touch /tmp/started; exit 1; }" exited with 1',
          `Readiness probe failed: command "sh -c cat /tmp/ready || { echo ok > /tmp/ready; exit 1; }" exited with 1: cat: can't open '/tmp/ready': No such file or directory`,
        ],
        "startup first, then readiness, each failing once",
      );
      t.match(of("db")[0], /^Readiness probe failed: dial tcp [\d.]+:5432: connect: connection refused$/);
      t.equal((await env.exec("worker", ["cat", "/tmp/ready"])).stdout.trim(), "ok");
      t.notMatch(r.stdout, /ready: /, "--json prints events only");
    });

    t.test(
      `${runtime}: a pod that never gets ready times out with exit 1, the reason and its last log lines`,
      async (t) => {
        const env = await setup(t, runtime, "never");
        if (!env) return;
        await env.write(
          podYaml(
            env.name,
            `    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", "echo line-one; sleep 0.2; echo line-two >&2; exec sleep 600"]
      readinessProbe:
        exec:
          command: ["sh", "-c", "echo not ready; exit 1"]
        periodSeconds: 1
        timeoutSeconds: 10
`,
          ),
        );
        const started = Date.now();
        // The limit counts from the start of `up` (one deadline for the run), the pod's start included.
        const r = await env.up(["--json", "--timeout", "7s"]);
        const elapsed = Date.now() - started;
        t.equal(r.exitCode, 1);
        t.ok(elapsed >= 7000 && elapsed < 20_000, `timed out after ${elapsed} ms`);
        t.equal(
          lastLine(r.stderr),
          `Error: ContainersNotReady: pod/${env.name}: not ready after 7s: container app: Readiness probe failed: command "sh -c echo not ready; exit 1" exited with 1: not ready (0/1 successes)`,
        );
        t.match(r.stderr, "last log lines of container app:\n    line-one\n    line-two\n");
        t.match(r.stderr, `podrun: pod/${env.name} left as it is (podrun down ${env.file} removes it)`);
        // Probed again and again within the 7 s: every second, fewer when the machine is loaded (a
        // podman exec takes longer then); two Unhealthy events show the repetition either way.
        t.ok(events(r.stdout).filter((e) => e.reason === "Unhealthy").length >= 2, "Unhealthy, more than once");
        t.equal((await env.running()).length >= 1, true, "the pod is left for inspection");
      },
    );

    t.test(`${runtime}: a container that exits under restartPolicy Never fails the wait at once`, async (t) => {
      const env = await setup(t, runtime, "exits");
      if (!env) return;
      await env.write(
        podYaml(
          env.name,
          `    - name: app
      image: ${BUSYBOX}
      command: ["sh", "-c", "echo giving up; sleep 1; exit 3"]
      readinessProbe:
        exec:
          command: ["false"]
        periodSeconds: 1
`,
        ),
      );
      const started = Date.now();
      const r = await env.up(["--json", "--timeout", "2m"]);
      t.equal(r.exitCode, 1);
      t.ok(Date.now() - started < 20_000, "long before the timeout");
      t.equal(
        lastLine(r.stderr),
        `Error: ContainerTerminated: pod/${env.name}: container app exited with code 3 and restartPolicy Never does not restart it`,
      );
      t.match(r.stderr, "last log lines of container app:\n    giving up\n");
    });

    for (const rm of [false, true]) {
      t.test(
        `${runtime}: Ctrl-C while waiting exits 130 and ${rm ? "removes the pod (--rm-on-interrupt)" : "leaves the pod running"}`,
        async (t) => {
          const env = await setup(t, runtime, rm ? "int-rm" : "int");
          if (!env) return;
          await env.write(
            podYaml(
              env.name,
              `    - name: app\n      image: ${BUSYBOX}\n      command: ["sleep", "600"]\n      readinessProbe:\n        exec:\n          command: ["false"]\n        periodSeconds: 1\n` +
                `      volumeMounts:\n        - name: scratch\n          mountPath: /scratch\n  volumes:\n    - name: scratch\n      emptyDir: {}\n`,
            ),
          );
          const volumes = async () =>
            (
              await runCommand(runtime, ["volume", "ls", "-q", "--filter", `label=io.kubernetes.pod.name=${env.name}`])
            ).stdout.trim();
          const child = execa(
            process.execPath,
            [PODRUN_BIN, "up", "--runtime", runtime, "--wait", ...(rm ? ["--rm-on-interrupt"] : []), env.file],
            {
              env: { NO_COLOR: "1", ...env.env },
              reject: false,
              timeout: 60_000,
              stdin: "ignore",
            },
          );
          // Interrupt once the wait is under way: the first failed probe shows it.
          let output = "";
          await new Promise<void>((resolve) => {
            child.stdout.on("data", (chunk: Buffer) => {
              output += chunk.toString();
              if (output.includes("Unhealthy")) resolve();
            });
            void child.then(() => resolve());
          });
          child.kill("SIGINT");
          const result = await child;
          t.equal(result.exitCode, 130, String(result.stderr));
          if (rm) {
            t.match(String(result.stderr), `podrun: interrupted; removed pod/${env.name} (--rm-on-interrupt)`);
            t.same(await env.all(), [], "nothing left");
            t.equal(await volumes(), "", "its emptyDir volume removed too");
          } else {
            t.match(
              String(result.stderr),
              `podrun: interrupted; pod/${env.name} left running (podrun down ${env.file} removes it)`,
            );
            t.ok((await env.running()).length >= 2, "sandbox and app still running");
            t.not(await volumes(), "", "its emptyDir volume kept with it");
          }
        },
      );
    }
  });

t.test("--timeout needs a duration, and --wait", async (t) => {
  const bad = await runCli(["up", "--wait", "--timeout", "soon", "x.yaml"]);
  t.equal(bad.exitCode, 2);
  t.equal(bad.stderr, 'error: invalid value "soon" for --timeout: expected a duration such as 90s, 5m, 1m30s or 2d\n');
  const zero = await runCli(["up", "--wait", "--timeout", "0s", "x.yaml"]);
  t.equal(zero.exitCode, 2);
  t.match(zero.stderr, "the duration must be positive");
  const dir = await mkdtemp(join(tmpdir(), "podrun-wait-usage-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "pod.yaml");
  await writeFile(file, podYaml("usage", `    - name: app\n      image: ${BUSYBOX}\n`));
  const noWait = await runCli(["up", "--timeout", "90s", file]);
  t.equal(noWait.exitCode, 2);
  t.equal(noWait.stderr, "error: --timeout and --rm-on-interrupt apply only with --wait\n");
});
