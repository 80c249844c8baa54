import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { engineBlind, BUSYBOX, requirePodEngine } from "../harness/engine.js";

// A container's environment end to end: a ConfigMap and a Secret in the manifest, every kind of
// source, `$(VAR)` in env, command and args, read from inside the container (its logs). The
// Secret's value never shows in the event log, the JSON events or `--dry-run`; a changed
// ConfigMap value recreates the container on the next `up`, an unchanged manifest keeps it.

const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;

const PRINTED = [
  "FROM_CM",
  "CM_MODE",
  "CM_LEVEL",
  "SECRET",
  "S_TOKEN",
  "POD_NAME",
  "POD_NS",
  "POD_UID",
  "APP",
  "POD_IP",
  "NODE",
  "MEM_MI",
  "CPU_M",
  "EXPANDED",
  "UNDEFINED",
  "ESCAPED",
];
// `$NAME` (no parenthesis) is left alone by the kubelet's expansion: the shell reads it.
const PRINT_ENV = [...PRINTED.map((v) => `printf '%s=<%s>\\n' ${v} "$${v}"`), `printf 'ARG=<%s>\\n' "$@"`].join("; ");

function manifest(name: string, marker: string, mode: string): string {
  // A value with a line break, quotes, `$` and a `$(…)` that must stay as written.
  const secret = `${marker} "double" 'single' $HOME $(MODE)\nsecond line`;
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-cfg
data:
  MODE: ${mode}
  LEVEL: "3"
---
apiVersion: v1
kind: Secret
metadata:
  name: ${name}-creds
data:
  PASSWORD: ${Buffer.from(secret).toString("base64")}
stringData:
  TOKEN: ${marker}-token
---
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  labels:
    app: envtest
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
    - name: app
      image: ${BUSYBOX}
      resources:
        limits:
          memory: 64Mi
          cpu: 250m
      command: ${JSON.stringify(["sh", "-c", PRINT_ENV, "sh"])}
      args: ["$(FROM_CM)", "$(UNDEFINED_VAR)", "$$(FROM_CM)", "$(POD_NAME)-$(CM_LEVEL)", "$(S_TOKEN)"]
      envFrom:
        - prefix: CM_
          configMapRef:
            name: ${name}-cfg
        - prefix: S_
          secretRef:
            name: ${name}-creds
      env:
        - name: FROM_CM
          valueFrom:
            configMapKeyRef:
              name: ${name}-cfg
              key: MODE
        - name: SECRET
          valueFrom:
            secretKeyRef:
              name: ${name}-creds
              key: PASSWORD
        - name: POD_NAME
          valueFrom:
            fieldRef:
              fieldPath: metadata.name
        - name: POD_NS
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        - name: POD_UID
          valueFrom:
            fieldRef:
              fieldPath: metadata.uid
        - name: APP
          valueFrom:
            fieldRef:
              fieldPath: metadata.labels['app']
        - name: POD_IP
          valueFrom:
            fieldRef:
              fieldPath: status.podIP
        - name: NODE
          valueFrom:
            fieldRef:
              fieldPath: spec.nodeName
        - name: MEM_MI
          valueFrom:
            resourceFieldRef:
              resource: limits.memory
              divisor: 1Mi
        - name: CPU_M
          valueFrom:
            resourceFieldRef:
              resource: limits.cpu
              divisor: 1m
        - name: EXPANDED
          value: "$(FROM_CM)-$(POD_NAME)"
        - name: UNDEFINED
          value: "$(NOPE)"
        - name: ESCAPED
          value: "$$(FROM_CM)"
`;
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

for (const runtime of engineBlind("docker")) {
  t.test(`${runtime}: env from every source, $(VAR) expansion, secrets kept out of logs and dry runs`, async (t) => {
    if (!(await requirePodEngine(t, runtime))) return;
    const name = unique("env");
    const marker = `sekret-${randomBytes(4).toString("hex")}`;
    const stateDir = await mkdtemp(join(tmpdir(), "podrun-env-state-"));
    const dir = await mkdtemp(join(tmpdir(), "podrun-env-"));
    const file = join(dir, "pod.yaml");
    const env = { PODRUN_STATE_DIR: stateDir, PODRUN_RUNTIME: runtime };
    t.teardown(async () => {
      await runCli(["down", file], { env });
      await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
      await rm(stateDir, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    });

    await writeFile(file, manifest(name, marker, "fast"));
    const dry = await runCli(["up", "--dry-run", file], { env });
    t.equal(dry.exitCode, 0, dry.stderr);
    t.match(dry.stdout, "create", "the dry run prints the create command");
    t.notMatch(dry.stdout + dry.stderr, marker, "no secret in --dry-run output");
    t.match(dry.stdout, "'$(S_TOKEN)'", "an argument from a Secret is printed unexpanded");

    const up = await runCli(["up", "--json", file], { env });
    t.equal(up.exitCode, 0, up.stderr);
    t.notMatch(up.stdout + up.stderr, marker, "no secret in events or messages");
    const container = `default_${name}_app`;
    await runCommand(runtime, ["wait", container]);
    const logs = await runCli(["logs", name, "-c", "app"], { env });
    t.equal(logs.exitCode, 0, logs.stderr);
    const seen = new Map([...logs.stdout.matchAll(/^(\w+)=<([^>]*)>$/gm)].map((m) => [m[1]!, m[2]!]));
    const args = [...logs.stdout.matchAll(/^ARG=<([^>]*)>$/gm)].map((m) => m[1]);

    const inspect = JSON.parse((await runCommand(runtime, ["inspect", container, `default_${name}_POD`])).stdout) as {
      Config: { Labels: Record<string, string> };
      NetworkSettings: { IPAddress?: string; Networks?: Record<string, { IPAddress?: string }> };
    }[];
    const sandbox = inspect[1]!.NetworkSettings;
    const sandboxIP =
      sandbox.IPAddress ||
      Object.values(sandbox.Networks ?? {})
        .map((n) => n.IPAddress)
        .find(Boolean);
    t.ok(sandboxIP, "the sandbox has an address");

    t.equal(seen.get("FROM_CM"), "fast");
    t.equal(seen.get("CM_MODE"), "fast", "envFrom with a prefix");
    t.equal(seen.get("CM_LEVEL"), "3");
    t.match(
      logs.stdout,
      `SECRET=<${marker} "double" 'single' $HOME $(MODE)\nsecond line>\n`,
      "a Secret value exactly: line break, quotes, $",
    );
    t.equal(seen.get("S_TOKEN"), `${marker}-token`, "envFrom a Secret with a prefix; stringData");
    t.equal(seen.get("POD_NAME"), name);
    t.equal(seen.get("POD_NS"), "default");
    t.equal(seen.get("POD_UID"), inspect[0]!.Config.Labels["io.kubernetes.pod.uid"]);
    t.equal(seen.get("APP"), "envtest");
    t.equal(seen.get("POD_IP"), sandboxIP, "status.podIP is the sandbox's address");
    t.equal(seen.get("NODE"), hostname().toLowerCase());
    t.equal(seen.get("MEM_MI"), "64");
    t.equal(seen.get("CPU_M"), "250");
    t.equal(seen.get("EXPANDED"), `fast-${name}`);
    t.equal(seen.get("UNDEFINED"), "$(NOPE)", "an undefined reference stays as written");
    t.equal(seen.get("ESCAPED"), "$(FROM_CM)", "$$ escapes");
    t.same(
      args,
      ["fast", "$(UNDEFINED_VAR)", "$(FROM_CM)", `${name}-3`, `${marker}-token`],
      "args expanded with the final env, a Secret's value too",
    );

    // The event log and every other state file: no secret.
    for (const path of await listFiles(stateDir))
      t.notMatch(await readFile(path, "utf8"), marker, `no secret in ${path}`);

    // Again, unchanged: the container is kept (the pod's IP and UID do not count as changes).
    const again = await runCli(["up", "--json", file], { env });
    t.equal(again.exitCode, 0, again.stderr);
    t.notMatch(again.stdout, /"reason":"Created"/, "an unchanged manifest creates nothing");

    // A changed ConfigMap value: the container is made anew and sees it.
    await writeFile(file, manifest(name, marker, "slow"));
    const changed = await runCli(["up", "--json", file], { env });
    t.equal(changed.exitCode, 0, changed.stderr);
    t.match(changed.stdout, /"reason":"Created"/, "a changed ConfigMap recreates the container");
    await runCommand(runtime, ["wait", container]);
    const after = await runCli(["logs", name, "-c", "app"], { env });
    t.match(after.stdout, "FROM_CM=<slow>");
    for (const path of await listFiles(stateDir))
      t.notMatch(await readFile(path, "utf8"), marker, `still no secret in ${path}`);
  });
}
