import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import type { Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { PODRUN_BIN, runCli } from "../harness/cli.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { requireEngine, requireImage } from "../harness/engine.js";

// Pods for the `ps` and `logs` end-to-end tests, made by `podrun up` against a real engine, each
// test in a namespace of its own so that other test files' pods never show, removed at teardown.

export const BUSYBOX = "127.0.0.1:5100/podrun-test/busybox:1.36";
export const unique = (prefix: string) => `${prefix}-${randomBytes(3).toString("hex")}`;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const podYaml = (name: string, namespace: string, spec: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n${spec}`;
export const containerYaml = (name: string, script: string) =>
  `    - name: ${name}\n      image: ${BUSYBOX}\n      command: ["sh", "-c", ${JSON.stringify(script)}]\n`;

export async function setup(t: Test, runtime: RuntimeName) {
  if (
    !(await requireEngine(t, runtime)) ||
    !(await requireImage(t, runtime, BUSYBOX)) ||
    !(await requireImage(t, runtime, "registry.k8s.io/pause:3.10"))
  )
    return undefined;
  const dir = await mkdtemp(join(tmpdir(), "podrun-ps-logs-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const namespace = unique("pl");
  t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.namespace": namespace }));
  const env = { PODRUN_STATE_DIR: dir };
  const up = async (name: string, spec: string) => {
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, podYaml(name, namespace, spec));
    const result = await runCli(["up", "--runtime", runtime, "--json", file], { env });
    t.equal(result.exitCode, 0, `up ${name}: ${result.stderr}`);
  };
  const podrun = (...args: string[]) => runCli([...args, "--runtime", runtime], { env });
  /** Engine IDs of a pod's containers of one kind. */
  const idsOf = async (pod: string, kind: "app" | "init" | "infra") =>
    (
      await runCommand(runtime, [
        "ps",
        "-aq",
        "--no-trunc",
        "--filter",
        `label=io.kubernetes.pod.namespace=${namespace}`,
        "--filter",
        `label=io.kubernetes.pod.name=${pod}`,
        "--filter",
        `label=io.podrun.container.kind=${kind}`,
      ])
    ).stdout
      .split("\n")
      .filter(Boolean);
  const inspect = async (id: string) =>
    (
      JSON.parse((await runCommand(runtime, ["container", "inspect", id])).stdout) as {
        State: { ExitCode: number };
        NetworkSettings: { IPAddress?: string; Networks?: Record<string, { IPAddress?: string }> };
      }[]
    )[0]!;
  /** Polls `podrun logs` until its output contains `text` (the container may not have printed it yet). */
  const logsUntil = async (text: string, ...args: string[]) => {
    let result = await podrun("logs", ...args);
    for (let i = 0; i < 50 && !result.stdout.includes(text); i++) {
      await sleep(100);
      result = await podrun("logs", ...args);
    }
    return result;
  };
  return { namespace, up, podrun, idsOf, inspect, logsUntil, env };
}

/** `podrun ARGS` left running, its standard output gathered as it comes (runCli waits for the end). */
export function startCli(args: readonly string[], env: Record<string, string>) {
  const child = execa(process.execPath, [PODRUN_BIN, ...args], {
    env: { NO_COLOR: "1", FORCE_COLOR: "0", ...env },
    reject: false,
    stdin: "ignore",
    timeout: 60_000,
  });
  const output = { text: "" };
  child.stdout.on("data", (chunk: Buffer) => (output.text += chunk.toString()));
  /** Waits (up to 10 s) until the output holds `text`. */
  const waitFor = async (text: string) => {
    for (let i = 0; i < 100 && !output.text.includes(text); i++) await sleep(100);
  };
  return { child, output, waitFor };
}
