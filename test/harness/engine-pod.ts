import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Test } from "tap";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { runCli, type CliResult } from "./cli.js";
import { requirePodEngine } from "./engine.js";

// The common ground of the end-to-end tests that check a field from inside the container: the
// engine and the two images, a state directory and a manifest directory of the test's own
// (removed at teardown), `podrun up` of a manifest, and reading what a container sees.

/** The test image, from the guards' module: the tests that run a pod import both from here. */
export { BUSYBOX } from "./engine.js";

/** A name no other run uses (pods of parallel runs must not meet): `prefix-` and six hex digits. */
export const uniqueName = (prefix: string): string => `${prefix}-${randomBytes(3).toString("hex")}`;

/** The start of a test Pod's manifest, never restarted and stopped at once; its spec's fields follow, indented by two. */
export const testPodHeader = (name: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  restartPolicy: Never\n  terminationGracePeriodSeconds: 1\n`;

export interface EnginePodTest {
  stateDir: string;
  /** Writes `yaml` as `<name>.yaml` and runs `podrun up` on it. */
  up: (name: string, yaml: string) => Promise<CliResult>;
  /** The stdout of `command` run in container `container` of pod `pod` (namespace default). */
  exec: (pod: string, container: string, command: string[]) => Promise<string>;
  /** A container's logs once it printed `done` (tried for 10 s). */
  reportOf: (pod: string, container: string) => Promise<string>;
}

/** Undefined (the test skipped or failed as the environment says) when the engine or an image is missing. */
export async function setupEnginePod(
  t: Test,
  runtime: RuntimeName,
  options: { env?: Record<string, string> } = {},
): Promise<EnginePodTest | undefined> {
  if (!(await requirePodEngine(t, runtime))) return undefined;
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-e2e-state-"));
  const dir = await mkdtemp(join(tmpdir(), "podrun-e2e-"));
  t.teardown(() => Promise.all([stateDir, dir].map((path) => rm(path, { recursive: true, force: true }))));
  return {
    stateDir,
    up: async (name, yaml) => {
      const file = join(dir, `${name}.yaml`);
      await writeFile(file, yaml);
      return runCli(["up", "--runtime", runtime, file], { env: { PODRUN_STATE_DIR: stateDir, ...options.env } });
    },
    exec: async (pod, container, command) =>
      (await runCommand(runtime, ["exec", `default_${pod}_${container}`, ...command])).stdout,
    reportOf: async (pod, container) => {
      let logs = "";
      for (let i = 0; i < 50 && !logs.includes("done"); i++) {
        logs = (await runCommand(runtime, ["logs", `default_${pod}_${container}`], { reject: false })).stdout;
        if (!logs.includes("done")) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return logs;
    },
  };
}
