import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import type { Secret } from "kubernetes-types/core/v1.js";
import { KUBERNETES_API_VERSION } from "../../lib/manifest/kubernetes-version.js";
import { runCli } from "../harness/cli.js";

// These tests run the built CLI (bin/podrun.js → dist/), as a user does; `npm test` builds first.

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  initContainers:
    - name: init
      image: busybox:1.36
  containers:
    - name: app
      image: busybox
    - name: side
      image: registry.example.com:5000/team/side@sha256:${"a".repeat(64)}
`;

const BAD = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: app
      image: busybox
      imagePullPolicyy: Always
    - name: app
      image: busybox
      imagePullPolicy: Sometimes
      ports:
        - containerPort: 70000
    - name: third
`;

const OPTIONAL_HINT =
  "hint: podrun reads only the files given: pass the file that defines each ConfigMap and Secret, or mark a reference that may be absent `optional: true`";

/** The fields of a Pod that validate's defaulting fills in. */
interface DefaultedPod {
  metadata: { namespace: string };
  spec: {
    restartPolicy: string;
    terminationGracePeriodSeconds: number;
    containers: { imagePullPolicy: string }[];
    initContainers: [{ imagePullPolicy: string }];
  };
}

const dirs: string[] = [];
t.teardown(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const write = async (name: string, text: string) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-cli-"));
  dirs.push(dir);
  const file = join(dir, name);
  await writeFile(file, text);
  return { dir, file };
};

t.test("--version and --help", async (t) => {
  const { version } = JSON.parse(
    await (await import("node:fs/promises")).readFile(new URL("../../package.json", import.meta.url), "utf8"),
  ) as { version: string };
  const v = await runCli(["--version"]);
  t.equal(v.exitCode, 0);
  t.equal(v.stdout.trim(), `${version} (Kubernetes API ${KUBERNETES_API_VERSION})`);
  const help = await runCli(["--help"]);
  t.equal(help.exitCode, 0);
  t.match(help.stdout, /validate \[options\] \[file\.\.\.\]/);
  t.match(help.stdout, /up\|apply \[options\] \[file\.\.\.\]/);
  t.match(help.stdout, /\$ podrun validate pod\.yaml/);
  t.match(help.stdout, /Exit codes: 0 ok, 1 .*, 2 usage or manifest error/);
});

t.test("usage errors exit 2", async (t) => {
  const unknown = await runCli(["frobnicate"]);
  t.equal(unknown.exitCode, 2);
  t.match(unknown.stderr, /unknown command 'frobnicate'/);
  const missing = await runCli(["validate"]);
  t.equal(missing.exitCode, 2);
  t.equal(
    missing.stderr,
    "error: no manifest given: name a FILE, a DIR, or - for standard input (or -f FILE, -k DIR)\n",
  );
  const flag = await runCli(["validate", "--bogus", "x.yaml"]);
  t.equal(flag.exitCode, 2);
});

t.test("a valid pod: one summary line, exit 0", async (t) => {
  const { file } = await write("pod.yaml", POD);
  const r = await runCli(["validate", file], { env: { NO_COLOR: "1" } });
  t.equal(r.exitCode, 0, r.stderr);
  t.equal(r.stdout, `${file}: Pod web (2 containers, 1 init container): valid\n`);
  t.equal(r.stderr, "");
});

t.test("every error of the file, one line each, file:line:col, exit 2", async (t) => {
  const { file } = await write("bad.yaml", BAD);
  const r = await runCli(["validate", file], { env: { NO_COLOR: "1" } });
  t.equal(r.exitCode, 2);
  t.equal(r.stdout, "");
  t.same(r.stderr.trimEnd().split("\n"), [
    `${file}:9:7: spec.containers[0]: unknown field "imagePullPolicyy"`,
    `${file}:10:13: spec.containers[1].name: Duplicate value: "app"`,
    `${file}:12:24: spec.containers[1].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
    `${file}:14:26: spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
    `${file}:15:7: spec.containers[2].image: Required value`,
  ]);
});

t.test("standard input, and several files at once", async (t) => {
  const good = await write("good.yaml", POD);
  const bad = await write("bad.yaml", BAD);
  const piped = await runCli(["validate", "-"], { input: POD, env: { NO_COLOR: "1" } });
  t.equal(piped.exitCode, 0);
  t.equal(piped.stdout, "<stdin>: Pod web (2 containers, 1 init container): valid\n");
  const both = await runCli(["validate", good.file, bad.file], { env: { NO_COLOR: "1" } });
  t.equal(both.exitCode, 2, "one invalid file fails the run");
  // The files are one set: a summary would vouch for files whose references the others break.
  t.equal(both.stdout, "");
  t.match(both.stderr, `${bad.file}:9:7:`);
});

t.test("--json prints the defaulted objects as a List, secrets redacted", async (t) => {
  const secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {password: hunter2}\n---\n";
  const { file } = await write("pod.yaml", secret + POD);
  const r = await runCli(["validate", "--json", file]);
  t.equal(r.exitCode, 0, r.stderr);
  t.notMatch(r.stdout, "hunter2");
  const list = JSON.parse(r.stdout) as { kind: string; items: [Secret, DefaultedPod] };
  t.equal(list.kind, "List");
  const [sec, pod] = list.items;
  t.same(sec.stringData, { password: "<redacted>" });
  t.equal(sec.type, "Opaque");
  t.equal(pod.metadata.namespace, "default");
  t.equal(pod.spec.restartPolicy, "Always");
  t.equal(pod.spec.terminationGracePeriodSeconds, 30);
  t.same(
    pod.spec.containers.map((c: { imagePullPolicy: string }) => c.imagePullPolicy),
    ["Always", "IfNotPresent"],
  );
  t.equal(pod.spec.initContainers[0].imagePullPolicy, "IfNotPresent");
});

t.test("warnings name fields podrun ignores, on stderr, without failing", async (t) => {
  const { file } = await write("pod.yaml", POD.replace("spec:\n", "spec:\n  nodeSelector:\n    disk: ssd\n"));
  const r = await runCli(["validate", file], { env: { NO_COLOR: "1" } });
  t.equal(r.exitCode, 0);
  t.equal(r.stderr, `${file}:6:3: Warning: spec.nodeSelector: scheduling does not apply on one machine: ignored\n`);
});

t.test("NO_COLOR and FORCE_COLOR", async (t) => {
  const { file } = await write("pod.yaml", POD);
  const forced = await runCli(["validate", file], { env: { FORCE_COLOR: "1" } });
  t.match(forced.stdout, "\u001b[32mvalid");
  const plain = await runCli(["validate", file], { env: { NO_COLOR: "1" } });
  t.notMatch(plain.stdout, "\u001b[");
  const piped = await runCli(["validate", file]);
  t.notMatch(piped.stdout, "\u001b[", "no colour when stdout is not a terminal");
});

t.test("the examples are valid", async (t) => {
  const examples = ["web-sidecar.yaml", "init-data.yaml", "db-and-app.yaml", "shop/"].map(
    (f) => new URL(`../../examples/${f}`, import.meta.url).pathname,
  );
  const r = await runCli(["validate", ...examples], { env: { NO_COLOR: "1" } });
  t.equal(r.exitCode, 0, r.stderr);
  t.equal(r.stdout.trimEnd().split("\n").length, 10);
  t.match(r.stdout, /db-and-app\.yaml: Pod db-and-app \(2 containers\): valid/);
  t.match(r.stdout, /shop\/40-web\.yaml: Service web \(NodePort, 80→http\): valid/);
});

t.test("several files and a directory are one set: references across files, a summary per file", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-cli-set-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  GREETING: hello\n";
  const pod =
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n    - name: app\n      image: busybox\n      envFrom:\n        - configMapRef:\n            name: app-config\n";
  await writeFile(join(dir, "cm.yaml"), cm);
  await writeFile(join(dir, "pod.yaml"), pod);
  await writeFile(join(dir, "README.md"), "not a manifest\n");
  const cmFile = join(dir, "cm.yaml");
  const podFile = join(dir, "pod.yaml");

  // An API server takes the pod alone; the kubelet would fail it: a Warning, and an error with --strict-refs.
  const missing = `${podFile}:11:19: spec.containers[0].envFrom[0].configMapRef.name: Not found: "app-config": no ConfigMap "app-config" in namespace "default" in the file read (${podFile})`;
  const alone = await runCli(["validate", podFile]);
  t.equal(alone.exitCode, 0);
  t.equal(
    alone.stderr,
    `${missing.replace(": spec.", ": Warning: spec.")} (the kubelet's CreateContainerConfigError: up refuses it)\n${OPTIONAL_HINT}\n`,
  );
  const strict = await runCli(["validate", "--strict-refs", podFile]);
  t.equal(strict.exitCode, 2);
  t.equal(strict.stderr, `${missing} (the kubelet's CreateContainerConfigError)\n${OPTIONAL_HINT}\n`);

  for (const args of [[cmFile, podFile], ["-f", cmFile, "-f", podFile], [dir], ["-f", dir], [dir, cmFile]]) {
    const r = await runCli(["validate", ...args]);
    t.equal(r.exitCode, 0, `${args.join(" ")}: ${r.stderr}`);
    t.equal(
      r.stdout,
      `${cmFile}: no Pod (1 ConfigMap): valid\n${podFile}: Pod web (1 container): valid\n`,
      args.join(" "),
    );
  }

  const json = await runCli(["validate", "--json", dir]);
  t.equal(json.exitCode, 0, json.stderr);
  const list = JSON.parse(json.stdout) as { kind: string; items: { kind: string; metadata: { name: string } }[] };
  t.equal(list.kind, "List", "one List for the whole set");
  t.same(
    list.items.map((o: { kind: string; metadata: { name: string } }) => `${o.kind}/${o.metadata.name}`),
    ["ConfigMap/app-config", "Pod/web"],
  );

  const twice = await runCli(["validate", cmFile, podFile, join(dir, "again.yaml")]);
  t.equal(twice.exitCode, 2);
  t.equal(twice.stderr, `${join(dir, "again.yaml")}: cannot read: no such file\n`);
});

t.test("a directory: empty, or with its manifests below (-R); the same object in two files", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-cli-dir-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const pod = (name: string) =>
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n    - {name: app, image: busybox}\n`;
  const { mkdir } = await import("node:fs/promises");
  await mkdir(join(dir, "empty"));
  await mkdir(join(dir, "nested/sub"), { recursive: true });
  await writeFile(join(dir, "nested/sub/a.yaml"), pod("a"));
  await writeFile(join(dir, "nested/sub/b.yml"), pod("a"));

  const empty = await runCli(["validate", join(dir, "empty")]);
  t.equal(empty.exitCode, 2);
  t.equal(empty.stderr, `${join(dir, "empty")}: no manifest in this directory (no *.yaml, *.yml, *.json file)\n`);

  const flat = await runCli(["validate", join(dir, "nested")]);
  t.equal(flat.exitCode, 2);
  t.match(flat.stderr, "its subdirectories hold 2: -R reads them");

  const deep = await runCli(["validate", "-R", join(dir, "nested")]);
  t.equal(deep.exitCode, 2);
  t.equal(
    deep.stderr,
    `${join(dir, "nested/sub/b.yml")}:4:9: metadata.name: Duplicate value: "a": Pod "a" in namespace "default" is also defined at ${join(dir, "nested/sub/a.yaml")}:4:9\n`,
  );

  const stdinTwice = await runCli(["validate", "-", "-"], { input: pod("a") });
  t.equal(stdinTwice.exitCode, 2);
  t.equal(stdinTwice.stderr, "-: standard input can be read only once: give - at most once\n");
});

t.test(
  "what only a kubelet finds: a Warning at validate, an error with --strict-refs and at up, nothing created",
  async (t) => {
    const { dir, file } = await write(
      "pod.yaml",
      `apiVersion: v1
kind: Pod
metadata:
  name: kubelet-only
spec:
  containers:
    - name: app
      image: gcr.io/<project>/job-wq-1
      volumeMounts: [{name: config, mountPath: /etc/app}, {name: data, mountPath: /data}]
  volumes:
    - name: config
      configMap: {name: app-config}
    - name: data
      hostPath: {path: ${JSON.stringify(join(tmpdir(), "podrun-no-such-dir"))}, type: Directory}
    - name: claim
      persistentVolumeClaim: {claimName: db}
`,
    );
    const reasons = ["InvalidImageName", "FailedMount", "FailedMount", "FailedMount"];
    const checked = await runCli(["validate", file], { env: { NO_COLOR: "1" } });
    t.equal(checked.exitCode, 0, "an API server accepts it");
    const warnings = checked.stderr.trimEnd().split("\n");
    t.same(
      warnings.map((line) => /\(the kubelet's (\w+): up refuses it\)$/.exec(line)?.[1]),
      [...reasons, undefined],
      "one Warning per finding, naming the kubelet's reason, then the hint",
    );
    t.match(
      warnings[0],
      `${file}:8:14: Warning: spec.containers[0].image: Invalid value: "gcr.io/<project>/job-wq-1": invalid reference format: character "<" at position 8 is not allowed`,
    );
    t.match(warnings[2], `${file}:14:24: Warning: spec.volumes[1].hostPath.path: Invalid value:`);
    t.match(
      warnings[2],
      `MountVolume.SetUp failed for volume "data" : hostPath ${join(tmpdir(), "podrun-no-such-dir")} doesn't exist`,
    );
    t.match(warnings[3], `${file}:16:42: Warning: spec.volumes[2].persistentVolumeClaim.claimName: Not found: "db"`);
    t.equal(warnings[4], OPTIONAL_HINT, "the hint once");

    const strict = await runCli(["validate", "--strict-refs", file], { env: { NO_COLOR: "1" } });
    t.equal(strict.exitCode, 2);
    const errors = strict.stderr.trimEnd().split("\n");
    t.same(
      errors.map((line) => /\(the kubelet's (\w+)\)$/.exec(line)?.[1]),
      [...reasons, undefined],
      "--strict-refs: the same lines as errors",
    );

    // up refuses it before asking anything of an engine: a state directory of its own stays empty.
    const stateDir = join(dir, "state");
    const up = await runCli(["up", file], {
      env: { NO_COLOR: "1", PODRUN_STATE_DIR: stateDir, PODRUN_RUNTIME: "docker", PATH: "/nonexistent" },
    });
    t.equal(up.exitCode, 2);
    t.same(up.stderr.trimEnd().split("\n"), errors, "up: the same errors");
  },
);
