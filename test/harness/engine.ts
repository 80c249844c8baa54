// Guards for tests that need the real environment of scripts/test-env.sh. Each returns what it
// checked, or undefined after ending the test: skipped on a developer machine that lacks it,
// FAILED under CI=true, where a missing engine is a broken setup rather than a reason to skip.
// Call them before any assertion, and return when they give undefined:
//   const docker = await requireEngine(t, "docker"); if (!docker) return;
import { detectRuntime, type DetectedRuntime, type RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { join } from "node:path";
import { withLock } from "../../lib/state/lock.js";
import { loadTestEnv, testEnvHome, type RegistryName, type TestEnv } from "./env.js";

/** The part of a tap `Test` the guards use. */
export interface TestLike {
  fail(message: string): unknown;
  plan(n: number, comment?: string): void;
}

/** Ends `t` because `what` is missing: a failure under CI=true, a skip otherwise. */
export function missing(t: TestLike, what: string): undefined {
  const hint = `${what}; \`bash scripts/test-env.sh\` (as root) brings it up`;
  if (process.env["CI"] === "true") {
    t.fail(`CI=true but the test environment is incomplete: ${hint}`);
    t.plan(1);
  } else {
    t.plan(0, `missing ${hint}`);
  }
  return undefined;
}

export function requireTestEnv(t: TestLike): TestEnv | undefined {
  return loadTestEnv() ?? missing(t, "env.json of the test environment");
}

const engines = new Map<RuntimeName, Promise<DetectedRuntime | string>>();

/** The engine, if `<runtime> version` answers (checked once per test process). */
export async function requireEngine(t: TestLike, runtime: RuntimeName): Promise<DetectedRuntime | undefined> {
  let probe = engines.get(runtime);
  if (!probe) {
    probe = detectRuntime({ preferred: runtime }).catch((error: unknown) => (error as Error).message);
    engines.set(runtime, probe);
  }
  const found = await probe;
  return typeof found === "string" ? missing(t, `${runtime} engine (${found})`) : found;
}

/** The registry's address, if it answers `GET /v2/` (200 for the open one, 401 for the auth one). */
export async function requireRegistry(t: TestLike, which: RegistryName): Promise<string | undefined> {
  const testEnv = requireTestEnv(t);
  if (!testEnv) return undefined;
  const address = testEnv.registries[which];
  try {
    const response = await fetch(`http://${address}/v2/`, { signal: AbortSignal.timeout(5000) });
    if (response.status === 200 || response.status === 401) return address;
    return missing(t, `${which} registry (http://${address}/v2/ answered ${response.status})`);
  } catch (error) {
    return missing(t, `${which} registry (http://${address}/v2/: ${(error as Error).message})`);
  }
}

/** `image` if the runtime's local store has it. */
export async function requireImage(t: TestLike, runtime: RuntimeName, image: string): Promise<string | undefined> {
  const engine = await requireEngine(t, runtime);
  if (!engine) return undefined;
  const result = await runCommand(engine.binary, ["image", "inspect", image], { reject: false });
  return result.exitCode === 0 ? image : missing(t, `image ${image} in ${runtime}`);
}

/** The test image, pushed to the open registry and present in both engines (scripts/test-env.sh). */
export const BUSYBOX = "127.0.0.1:5100/podrun-test/busybox:1.36";
/** The kubelet's sandbox image, built locally by scripts/test-env.sh. */
export const PAUSE = "registry.k8s.io/pause:3.10";

/** What a test that runs a pod needs: the engine, the test image and the sandbox image. */
export async function requirePodEngine(t: TestLike, runtime: RuntimeName): Promise<DetectedRuntime | undefined> {
  const engine = await requireEngine(t, runtime);
  if (!engine || !(await requireImage(t, runtime, BUSYBOX)) || !(await requireImage(t, runtime, PAUSE)))
    return undefined;
  return engine;
}

/**
 * The engines of a file whose subject is podrun's own logic (timers, back-off, ordering, Job and
 * workload controllers, reconcile, `down`'s selection), which reaches the engine only through
 * lib/runtime's interface: `own` alone, or both under `PODRUN_TEST_ALL_ENGINES=1`. That interface
 * is proven on both engines by test/runtime/contract.e2e.test.ts and the argv goldens, and every
 * file whose subject is what an engine does with podrun's arguments (security, mounts, resources,
 * DNS, pulls, logs, `ps`) runs on both: a second engine under such a file proves the same code
 * again at CI's cost (figures: bench/RESULTS.md, "Test suite time"). The files spread between the
 * two engines, so that podman's pods still carry some of that logic in every run.
 */
export function engineBlind(own: RuntimeName): readonly RuntimeName[] {
  return process.env["PODRUN_TEST_ALL_ENGINES"] === "1" ? ["docker", "podman"] : [own];
}

/**
 * Holds the simulated VM engines of scripts/test-env.sh for this test file until it ends: the
 * files that use them run `down --all` there, which must not meet another file's pods (tap runs
 * files side by side). A file killed meanwhile leaves a lock whose owner is dead: the next breaks it.
 */
export async function holdVmEngines(t: { teardown(fn: () => unknown): void }): Promise<void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await new Promise<void>((acquired, failed) => {
    withLock(
      join(testEnvHome(), "vm-engines.lock"),
      () => {
        acquired();
        return held;
      },
      { timeoutMs: 10 * 60_000, staleMs: 30 * 60_000 },
    ).catch(failed);
  });
  t.teardown(() => release());
}
