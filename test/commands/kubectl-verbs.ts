import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { request } from "node:http";
import { execa } from "execa";
import { PODRUN_BIN, runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { requirePodEngine } from "../harness/engine.js";
import { BUSYBOX, uniqueName } from "../harness/engine-pod.js";

// The kubectl verbs of issue 26 through the CLI (verbsTest, run on docker by
// kubectl-verbs.docker.e2e.test.ts and on podman by kubectl-verbs.podman.e2e.test.ts), checked
// against what the engine holds: -l and --field-selector on ps, logs, events and down; exec (the pod
// and container it picks, the exit code passed through, stdin with -i, a terminal only with -t,
// kubectl's errors). One stack per engine, in a namespace of the test's own: a Deployment of two pods
// and a bare pod with an init container, a default-container annotation and a second container.

function manifest(ns: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: ${ns}}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api, tier: backend}}
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - name: app
        image: ${BUSYBOX}
        command: [sh, -c, 'echo "hello from $(hostname)"; sleep 2; touch /tmp/ready; mkdir /www; hostname > /www/index.html; exec httpd -f -p 8080 -h /www']
        ports: [{name: http, containerPort: 8080}]
        readinessProbe: {exec: {command: [cat, /tmp/ready]}, periodSeconds: 1}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: ${ns}}
spec:
  selector: {app: api}
  ports: [{port: 80, targetPort: http}]
---
apiVersion: v1
kind: Pod
metadata:
  name: tools
  namespace: ${ns}
  labels: {app: tools, tier: ops}
  annotations: {kubectl.kubernetes.io/default-container: shell}
spec:
  terminationGracePeriodSeconds: 0
  initContainers:
  - {name: prepare, image: ${BUSYBOX}, command: [sh, -c, 'echo prepared; echo done > /tmp/prepared']}
  containers:
  - {name: idle, image: ${BUSYBOX}, command: [sleep, '600']}
  - {name: shell, image: ${BUSYBOX}, command: [sleep, '600']}
`;
}

/** A pod whose container exits 3 at once (restarted by the engine), reading a Secret. */
function crashManifest(ns: string): string {
  return `apiVersion: v1
kind: Secret
metadata: {name: db, namespace: ${ns}}
stringData: {password: s3cret-value}
---
apiVersion: v1
kind: Pod
metadata: {name: crashy, namespace: ${ns}, labels: {role: crash}}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: app
    image: ${BUSYBOX}
    command: [sh, -c, 'exit 3']
    env:
    - name: PASSWORD
      valueFrom: {secretKeyRef: {name: db, key: password}}
`;
}

/** A container's log, once it printed its line (tried for 10 s). */
async function started(runtime: RuntimeName, container: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await runCommand(runtime, ["logs", container], { reject: false })).stdout.includes("hello")) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** GET / on a local port, a fresh connection each time: the body, trimmed. */
function httpGet(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", agent: false, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString()));
      res.on("end", () => resolve(body.trim()));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.end();
  });
}

const verbWords = (args: readonly string[]) => (args[0] === "rollout" ? 2 : 1);

const rows = (stdout: string) =>
  stdout
    .split("\n")
    .slice(1)
    .filter(Boolean)
    .map((line) => line.split(/\s+/)[0]!);

/**
 * The whole case on one engine; kubectl-verbs.docker.e2e.test.ts and kubectl-verbs.podman.e2e.test.ts
 * each run it on theirs, so that tap runs the two in two of its slots (each engine's stack is its own:
 * namespace, state directory).
 */
export async function verbsTest(t: Test, runtime: RuntimeName): Promise<void> {
  if (!(await requirePodEngine(t, runtime))) return;
  const ns = uniqueName("verbs");
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-verbs-"));
  const stateDir = join(dir, "state");
  const file = join(dir, "stack.yaml");
  await writeFile(file, manifest(ns));
  const env = { PODRUN_STATE_DIR: stateDir };
  const cli = (args: string[], input?: string) =>
    // The engine and namespace flags after the verb (`rollout status`: two words), before any `--`.
    runCli([...args.slice(0, verbWords(args)), "--runtime", runtime, "-n", ns, ...args.slice(verbWords(args))], {
      env,
      ...(input === undefined ? {} : { input }),
    });
  t.teardown(async () => {
    await runCli(["down", "--all", "-n", ns, "--grace-period", "0", "--runtime", runtime], { env });
    await removeManagedContainers(runtime, { "io.kubernetes.pod.namespace": ns });
    await rm(dir, { recursive: true, force: true });
  });

  const up = await runCli(["up", file, "--runtime", runtime], { env });
  t.equal(up.exitCode, 0, `up: ${up.stderr}`);
  const api = rows((await cli(["ps", "-l", "app=api"])).stdout);
  t.equal(api.length, 2, "ps -l app=api: the Deployment's two pods");
  for (const pod of api) await started(runtime, `${ns}_${pod}_app`);

  t.test("ps -l and --field-selector", async (t) => {
    t.same(rows((await cli(["ps", "-l", "tier in (ops)"])).stdout), ["tools"], "set-based");
    t.same(rows((await cli(["ps", "-l", "app,app!=api"])).stdout), ["tools"], "exists and !=");
    const none = await cli(["ps", "-l", "app=db"]);
    t.equal(none.stderr.trim(), `No resources found in ${ns} namespace.`);
    const field = await cli(["ps", "--field-selector", "metadata.name=tools,status.phase=Running"]);
    t.same(rows(field.stdout), ["tools"], "--field-selector");
    const bad = await cli(["ps", "-l", "app in api"]);
    t.equal(bad.exitCode, 2, "a bad selector: usage error");
    t.match(bad.stderr, /unable to parse label selector "app in api": found 'api', expected: '\('/);
    const json = JSON.parse((await cli(["ps", "-l", "app=tools", "-o", "json"])).stdout) as {
      items: { metadata: { labels: Record<string, string> } }[];
    };
    t.same(json.items[0]!.metadata.labels, { app: "tools", tier: "ops" }, "-o json: the pod's labels");
    const names = await cli(["get", "pods", "-l", "app=api", "-o", "name"]);
    t.same(names.stdout.split("\n").filter(Boolean).sort(), api.map((pod) => `pod/${pod}`).sort(), "get pods -o name");
    const svc = await cli(["get", "svc", "api"]);
    t.match(svc.stdout, /^NAME +TYPE +CLUSTER-IP/, "get svc: the Services' table");
  });

  t.test(
    "get: workloads, Jobs and Services in kubectl's columns; -o jsonpath, custom-columns, yaml, name",
    async (t) => {
      const deploy = await cli(["get", "deploy"]);
      t.equal(deploy.exitCode, 0, deploy.stderr);
      t.match(deploy.stdout, /^NAME +READY +UP-TO-DATE +AVAILABLE +AGE\napi +[0-2]\/2 +2 +[0-2] +\S+\n$/, "get deploy");
      const phase = await cli(["get", "pod", "tools", "-o", "jsonpath={.status.phase}"]);
      t.equal(phase.stdout, "Running", "one pod by name: the object itself");
      const ranged = await cli(["get", "pods", "-o", 'jsonpath={range .items[*]}{.metadata.name}{"\\n"}{end}']);
      t.same(ranged.stdout.split("\n").filter(Boolean).sort(), [...api, "tools"].sort(), "range over the List");
      const filtered = await cli([
        "get",
        "pod",
        "tools",
        "-o",
        'jsonpath={.spec.containers[?(@.name=="shell")].image}',
      ]);
      t.equal(filtered.stdout, BUSYBOX, "a filter");
      const image = await cli(["get", "deploy/api", "-o", "jsonpath={.spec.template.spec.containers[0].image}"]);
      t.equal(image.stdout, BUSYBOX, "the Deployment's template, from its pods' records");
      const replicas = await cli(["get", "deployment.apps", "api", "-o", "jsonpath={.spec.replicas}"]);
      t.equal(replicas.stdout, "2");
      const columns = await cli([
        "get",
        "pods",
        "-l",
        "app=api",
        "-o",
        "custom-columns=NAME:.metadata.name,IP:.status.podIP",
      ]);
      const table = columns.stdout.split("\n").filter(Boolean);
      t.match(table[0], /^NAME +IP$/);
      t.same(
        table
          .slice(1)
          .map((line) => line.split(/\s+/)[0])
          .sort(),
        [...api].sort(),
        "custom-columns",
      );
      t.ok(
        table.slice(1).every((line) => /\s\d+\.\d+\.\d+\.\d+$/.test(line)),
        "each pod's IP",
      );
      const clusterIP = (await cli(["get", "svc", "api", "-o", "jsonpath={.spec.clusterIP}"])).stdout;
      t.match(clusterIP, /^\d+\.\d+\.\d+\.\d+$/, "a Service's clusterIP");
      const yaml = await cli(["get", "svc/api", "-o", "yaml"]);
      t.match(
        yaml.stdout,
        /^apiVersion: v1\nkind: Service\nmetadata:\n/,
        "-o yaml: the Service, keys sorted as kubectl's",
      );
      t.same((await cli(["get", "deploy", "-o", "name"])).stdout, "deployment.apps/api\n");
      const missing = await cli(["get", "deploy", "nope"]);
      t.equal(missing.exitCode, 1);
      t.equal(missing.stderr, 'Error from server (NotFound): deployments.apps "nope" not found\n');
      const none = await cli(["get", "sts"]);
      t.equal(none.stderr, `No resources found in ${ns} namespace.\n`);
      const bad = await cli(["get", "pods", "-o", "jsonpath={.items[*}"]);
      t.equal(bad.exitCode, 2, `a bad template: ${bad.stderr}`);
      // A Job run to completion: its record says so.
      const jobFile = join(dir, "job.yaml");
      await writeFile(
        jobFile,
        `apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate, namespace: ${ns}}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: m, image: ${BUSYBOX}, command: [sh, -c, 'echo migrated']}]\n`,
      );
      const ran = await runCli(["up", "--wait", jobFile, "--runtime", runtime], { env });
      t.equal(ran.exitCode, 0, ran.stderr);
      const job = await cli(["get", "jobs"]);
      t.match(
        job.stdout,
        /^NAME +STATUS +COMPLETIONS +DURATION +AGE\nmigrate +Complete +1\/1 +\S+ +\S+\n$/,
        "get jobs",
      );
      const succeeded = await cli([
        "get",
        "job/migrate",
        "-o",
        "jsonpath={.status.succeeded}/{.status.conditions[0].type}",
      ]);
      t.equal(succeeded.stdout, "1/Complete");
      const gone = await runCli(["down", jobFile, "--runtime", runtime], { env });
      t.equal(gone.exitCode, 0, gone.stderr);
    },
  );

  t.test("logs -l --prefix: each selected pod's lines, written inside it", async (t) => {
    const logs = await cli(["logs", "-l", "app=api", "--prefix"]);
    t.equal(logs.exitCode, 0);
    t.same(
      logs.stdout.split("\n").filter(Boolean).sort(),
      api.map((pod) => `[pod/${pod}/app] hello from ${pod}`).sort(),
    );
    // Two containers, no -c: the one the default-container annotation names (kubectl says nothing then).
    const defaulted = await cli(["logs", "tools"]);
    t.equal(defaulted.exitCode, 0, `logs of a pod of two containers: ${defaulted.stderr}`);
    t.equal(defaulted.stderr, "");
  });

  t.test("exec: the command's output and exit code; the container kubectl picks", async (t) => {
    const ok = await cli(["exec", `deploy/api`, "--", "sh", "-c", "echo out; echo err >&2; cat /etc/hostname"]);
    t.equal(ok.exitCode, 0);
    t.match(ok.stdout, /^out\n(api-\S+)\n?$/, "stdout, in the Deployment's pod");
    t.ok(api.includes(/\n(\S+)\n?$/.exec(ok.stdout)![1]!), "one of its pods, by its hostname");
    t.equal(ok.stderr, "err\n");
    const failed = await cli(["exec", "tools", "--", "sh", "-c", "echo partial; exit 3"]);
    t.equal(failed.exitCode, 3, "the command's exit code is podrun's");
    t.equal(failed.stdout, "partial\n");
    t.equal(failed.stderr, "command terminated with exit code 3\n", "kubectl's line");
    // The annotation names shell: the command runs there (its own process list has one sleep).
    const annotated = await cli(["exec", "tools", "--", "sh", "-c", "cat /proc/1/cmdline | tr '\\0' ' '"]);
    t.equal(annotated.stdout.trim(), "sleep 600", "in a container of the pod");
    t.equal(annotated.stderr, "", "the annotation's container: no note");
    const marked = await cli(["exec", "tools", "-c", "shell", "--", "sh", "-c", "touch /tmp/mark"]);
    t.equal(marked.exitCode, 0);
    const seen = await cli(["exec", "tools", "--", "ls", "/tmp/mark"]);
    t.equal(seen.exitCode, 0, "the default is the annotation's: the file -c shell made is there");
    const other = await cli(["exec", "tools", "-c", "idle", "--", "ls", "/tmp/mark"]);
    t.not(other.exitCode, 0, "not in the other container");
    const defaulted = await cli(["exec", "-l", "app=api", "--", "true"]);
    t.equal(defaulted.exitCode, 0, "-l: the first selected pod");
    const viaService = await cli(["exec", "svc/api", "--", "cat", "/etc/hostname"]);
    t.equal(viaService.exitCode, 0, viaService.stderr);
    t.ok(api.includes(viaService.stdout.trim()), "svc/api: a pod its selector picks");
  });

  t.test("exec -i streams stdin; a terminal only with -t", async (t) => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n");
    const piped = await cli(["exec", "-i", "tools", "--", "wc", "-l"], `${lines}\n`);
    t.equal(piped.stdout.trim(), "1000", "every line of stdin reached the command");
    const noInput = await cli(["exec", "tools", "--", "sh", "-c", "cat; echo done"]);
    t.equal(noInput.stdout, "done\n", "without -i the command gets no stdin");
    const noTty = await cli(["exec", "tools", "--", "sh", "-c", "test -t 1"]);
    t.equal(noTty.exitCode, 1, "no terminal without -t");
    // script(1) gives podrun a terminal, as a user's shell would.
    const command = [
      PODRUN_BIN,
      "exec",
      "-it",
      "tools",
      "--runtime",
      runtime,
      "-n",
      ns,
      "--",
      "sh",
      "-c",
      "test -t 1 && echo tty",
    ];
    const shell = command.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
    const viaScript = await promisify(execFile)("script", ["-qec", `node ${shell}`, "/dev/null"], {
      env: { ...process.env, ...env },
    }).catch((error: { stdout?: string; code?: number }) => ({ stdout: error.stdout ?? "", code: error.code }));
    t.match(viaScript.stdout, /tty/, "-t: the command has a terminal");
  });

  t.test("port-forward: a Service's port, 100 requests, SIGTERM ends it (exit 0); through the engine", async (t) => {
    const direct = await forward(["svc/api", ":80"]);
    t.match(direct.lines[0], /^Forwarding from 127\.0\.0\.1:\d+ -> 8080$/, "the Service port mapped to its targetPort");
    const served = new Set<string>();
    for (let i = 0; i < 100; i++) served.add(await httpGet(direct.port));
    t.ok(
      [...served].every((pod) => api.includes(pod)),
      `every answer from a pod of the Deployment: ${[...served].join(", ")}`,
    );
    const ended = await direct.stop();
    t.equal(ended.exitCode, 0, "SIGTERM ends it, exit 0");
    t.equal(ended.stdout.split("\n").filter((l) => l === `Handling connection for ${direct.port}`).length, 100);
    await t.rejects(httpGet(direct.port), "the port is closed");
    const engine = await forward(["deploy/api", ":http", "--via", "engine"]);
    for (let i = 0; i < 10; i++) t.ok(api.includes(await httpGet(engine.port)), `through the engine: request ${i + 1}`);
    t.equal((await engine.stop()).exitCode, 0);
  });

  /** `podrun port-forward ARGS` in the background, once it printed where it listens. */
  async function forward(args: string[]) {
    const child = execa(process.execPath, [PODRUN_BIN, "port-forward", "--runtime", runtime, "-n", ns, ...args], {
      env: { ...env, NO_COLOR: "1" },
      reject: false,
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    for (let i = 0; i < 100 && !/Forwarding from/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
    const lines = out.split("\n").filter(Boolean);
    const port = Number(/127\.0\.0\.1:(\d+)/.exec(out)?.[1]);
    return {
      lines,
      port,
      stop: async () => {
        child.kill("SIGTERM");
        const result = await child;
        return { exitCode: result.exitCode, stdout: out };
      },
    };
  }

  t.test("cp: to and from the default container, a directory, an exited container, kubectl's errors", async (t) => {
    await writeFile(join(dir, "in.txt"), "from the host\n");
    const into = await cli(["cp", join(dir, "in.txt"), "tools:/tmp/in.txt"]);
    t.equal(into.exitCode, 0, into.stderr);
    t.equal((await cli(["exec", "tools", "-c", "shell", "--", "cat", "/tmp/in.txt"])).stdout, "from the host\n");
    const out = await cli(["cp", `${ns}/tools:/tmp/in.txt`, join(dir, "back.txt")]);
    t.equal(out.exitCode, 0, out.stderr);
    t.equal(await readFile(join(dir, "back.txt"), "utf8"), "from the host\n", "NAMESPACE/POD:PATH, back again");
    await mkdir(join(dir, "tree", "sub"), { recursive: true });
    await writeFile(join(dir, "tree", "sub", "f"), "deep\n");
    t.equal((await cli(["cp", join(dir, "tree"), "tools:/tmp/tree"])).exitCode, 0);
    t.equal((await cli(["exec", "tools", "--", "cat", "/tmp/tree/sub/f"])).stdout, "deep\n", "a directory, whole");
    const exited = await cli(["cp", "-c", "prepare", "tools:/tmp/prepared", join(dir, "prepared")]);
    t.equal(exited.exitCode, 0, `from the init container that completed: ${exited.stderr}`);
    t.equal(await readFile(join(dir, "prepared"), "utf8"), "done\n", "the file it wrote");
    const missing = await cli(["cp", "tools:/no/such/file", join(dir, "x")]);
    t.equal(missing.exitCode, 1);
    t.match(missing.stderr, /^error: .*\/no\/such\/file/);
    const both = await cli(["cp", "tools:/a", "tools:/b"]);
    t.equal(both.exitCode, 2);
    t.equal(both.stderr, "error: one of src or dest must be a local file specification\n");
  });

  t.test("completion: bash completes commands, flags, and the engine's pods and workloads", async (t) => {
    // `podrun` on PATH, as a user's install puts it, on this engine.
    const bin = join(dir, "bin");
    await mkdir(bin, { recursive: true });
    await writeFile(
      join(bin, "podrun"),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(PODRUN_BIN)} "$@"\n`,
      { mode: 0o755 },
    );
    const script = (await runCli(["completion", "bash"])).stdout;
    await writeFile(join(dir, "completion.bash"), script);
    const complete = async (line: string) => {
      const words = line.split(" ");
      const program = [
        `source ${JSON.stringify(join(dir, "completion.bash"))}`,
        `COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(" ")}); COMP_CWORD=${words.length - 1}`,
        "_podrun",
        'printf "%s\\n" "${COMPREPLY[@]}"',
      ].join("\n");
      const result = await runCommand("bash", ["-c", program], {
        env: { PATH: `${bin}:${process.env.PATH}`, PODRUN_RUNTIME: runtime, ...env },
      });
      return result.stdout.split("\n").filter(Boolean);
    };
    t.same(await complete("podrun ro"), ["rollout"]);
    t.same(await complete("podrun logs --ta"), ["--tail"]);
    const names = await complete(`podrun logs -n ${ns} `);
    t.ok(names.includes("tools") && api.every((pod) => names.includes(pod)), `the pods: ${names.join(" ")}`);
    t.ok(names.includes("deployment/api"), "and the workloads");
    t.same(await complete(`podrun exec -n ${ns} too`), ["tools"]);
  });

  t.test(
    "describe: a crash-looping container's last state and exit code, kubectl's layout, no Secret value",
    async (t) => {
      const crash = join(dir, "crash.yaml");
      await writeFile(crash, crashManifest(ns));
      const upped = await runCli(["up", crash, "--runtime", runtime], { env });
      t.equal(upped.exitCode, 0, upped.stderr);
      t.teardown(() => runCli(["down", crash, "--runtime", runtime, "--grace-period", "0"], { env }));
      // The engine restarts it at once, then backs off (docker) or not (podman): looked at until it waits.
      let text = "";
      for (let i = 0; i < 40 && !text.includes("CrashLoopBackOff"); i++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        text = (await cli(["describe", "crashy"])).stdout;
      }
      t.match(text, /^Name: +crashy\nNamespace: +\S+\n/);
      t.match(
        text,
        /\n {4}State: +Waiting\n {6}Reason: +CrashLoopBackOff\n {4}Last State: +Terminated\n {6}Reason: +Error\n {6}Exit Code: +3\n/,
      );
      t.match(text, /\n {4}Restart Count: +[1-9]\d*\n/);
      t.match(text, /\n {6}PASSWORD: +<set to the key 'password' in secret 'db'> +Optional: false\n/);
      t.notMatch(text, /s3cret-value/, "the Secret's value is never shown");
      t.match(
        text,
        /\nEvents:\n +Type +Reason +Age +From +Message\n[\s\S]*Started +\S+ +podrun +Started container app/,
      );
      const tools = (await cli(["describe", "pod/tools"])).stdout;
      t.match(
        tools,
        /\nInit Containers:\n {2}prepare:\n[\s\S]*State: +Terminated\n {6}Reason: +Completed\n {6}Exit Code: +0\n/,
      );
      t.match(tools, /\nAnnotations: +kubectl\.kubernetes\.io\/default-container=shell\n/);
      const workload = (await cli(["describe", "deploy/api"])).stdout;
      t.equal(workload.match(/Controlled By: +Deployment\/api/g)?.length, 2, "a workload: each of its pods");
      const service = (await cli(["describe", "svc/api"])).stdout;
      t.match(service, /^Name: +api\nNamespace: +\S+\n[\s\S]*\nSelector: +app=api\nType: +ClusterIP\n/, "describe svc");
      t.match(
        service,
        /\nPort: +<unset> +80\/TCP\nTargetPort: +http\/TCP\nEndpoints: +(\d+\.\d+\.\d+\.\d+:8080,?){2}\n/,
      );
      const none = await cli(["describe", "nope"]);
      t.equal(none.exitCode, 1);
      t.equal(none.stderr, 'Error from server (NotFound): pods "nope" not found\n');
      const noService = await cli(["describe", "svc", "nope"]);
      t.equal(noService.stderr, 'Error from server (NotFound): services "nope" not found\n');
    },
  );

  t.test("exec: kubectl's errors", async (t) => {
    const noPod = await cli(["exec", "nope", "--", "true"]);
    t.equal(noPod.exitCode, 1);
    t.equal(noPod.stderr, 'Error from server (NotFound): pods "nope" not found\n');
    const noContainer = await cli(["exec", "tools", "-c", "db", "--", "true"]);
    t.equal(noContainer.exitCode, 1);
    t.equal(noContainer.stderr, 'error: unable to upgrade connection: container not found ("db")\n');
    const exited = await cli(["exec", "tools", "-c", "prepare", "--", "true"]);
    t.equal(exited.exitCode, 1, "an init container that completed");
    t.match(exited.stderr, /container is in CONTAINER_EXITED state/);
    const noCommand = await cli(["exec", "tools"]);
    t.equal(noCommand.exitCode, 2);
    t.equal(noCommand.stderr, "error: you must specify at least one command for the container\n");
    const missingBinary = await cli(["exec", "tools", "--", "no-such-binary"]);
    t.equal(missingBinary.exitCode, runtime === "docker" ? 126 : 127, "the engine's exit code for a missing binary");
    t.match(missingBinary.stderr, /command terminated with exit code 12[67]\n$/);
  });

  t.test(
    "wait and rollout status: readiness by the pods' probes, run by podrun; kubectl's lines and timeout",
    async (t) => {
      const ready = await cli(["wait", "--for=condition=Ready", "pod", "-l", "app=api", "--timeout", "60s"]);
      t.equal(ready.exitCode, 0, ready.stderr);
      t.same(ready.stdout.split("\n").filter(Boolean).sort(), api.map((pod) => `pod/${pod} condition met`).sort());
      const probed = await runCommand(runtime, ["exec", `${ns}_${api[0]}_app`, "cat", "/tmp/ready"], { reject: false });
      t.equal(probed.exitCode, 0, "the probe's file is there: Ready came from the probe passing");
      const available = await cli(["wait", "--for=condition=Available", "deploy/api"]);
      t.equal(available.stdout.trim(), "deployment.apps/api condition met");
      const rollout = await cli(["rollout", "status", "deploy/api", "--timeout", "60s"]);
      t.equal(rollout.exitCode, 0, rollout.stderr);
      t.equal(rollout.stdout.trim().split("\n").at(-1), 'deployment "api" successfully rolled out', "rollout status");
      const phase = await cli(["wait", "--for=jsonpath={.status.phase}=Running", "pod/tools"]);
      t.equal(phase.stdout.trim(), "pod/tools condition met");
      const late = await cli(["wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/tools", "--timeout", "2s"]);
      t.equal(late.exitCode, 1, "not in time: exit 1");
      t.equal(late.stderr, "error: timed out waiting for the condition on pods/tools\n");
      const missing = await cli(["wait", "--for=condition=Ready", "pod/nope"]);
      t.equal(missing.exitCode, 1);
      t.equal(missing.stderr, 'Error from server (NotFound): pods "nope" not found\n');
    },
  );

  t.test("events -l and down -l: the selected pods only", async (t) => {
    const events = await cli(["events", "-l", "app=tools", "--json"]);
    const names = new Set(
      events.stdout
        .split("\n")
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { involvedObject: { name: string } }).involvedObject.name),
    );
    t.same([...names], ["tools"], "events of the tools pod alone");
    const deleted = cli(["wait", "--for=delete", "pod", "-l", "app=api", "--timeout", "60s"]);
    const down = await cli(["down", "-l", "app=api", "--grace-period", "0"]);
    t.equal(down.exitCode, 0);
    const gone = await deleted;
    t.equal(gone.exitCode, 0, "wait --for=delete ends once the pods are gone");
    t.same(gone.stdout.split("\n").filter(Boolean).sort(), api.map((pod) => `pod/${pod} condition met`).sort());
    const left = await runCommand(runtime, [
      "ps",
      "-a",
      "-q",
      "--filter",
      `label=io.kubernetes.pod.namespace=${ns}`,
      "--filter",
      "label=io.kubernetes.container.name=app",
    ]);
    t.equal(left.stdout.trim(), "", "the engine holds no container of the Deployment's pods");
    t.same(rows((await cli(["ps"])).stdout), ["tools"], "the other pod stays");
  });
}
