import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { createRandom } from "./manifest-fuzzer.js";

// A PATH shim that kills `podrun up` at a chosen engine call, for the kill tests
// (test/state/robustness/kill-points*.e2e.test.ts). Placed first on PATH as `docker` or `podman`,
// it numbers every engine call podrun makes (an atomic mkdir per call, so concurrent calls get
// distinct numbers), records its pid and first arguments, and at call PODRUN_KILL_AT SIGKILLs
// its parent, the podrun process (execa spawns the engine directly: the shim's parent is node):
// - before: the command is not run, as when podrun dies just before spawning it;
// - after: the command runs to its end, then podrun dies before it reads the answer;
// - during: the command starts, and after PODRUN_KILL_DELAY seconds both it and podrun are
//   killed, as a process group is (a CI job's timeout, a closed terminal).
// PODRUN_KILL_AT=pull kills at the first `pull`, PODRUN_KILL_AT=network-create at the first
// `network create`. Unset, it only numbers the calls: a timed kill and the calibration run use
// that to know when every orphaned engine call has ended.

/** Where and how a run is killed. */
export interface KillPoint {
  /**
   * 1-based engine call number, `pull` (the first pull), `network-create` (the cluster network's
   * create), or a delay after the start (a timed kill).
   */
  at: number | "pull" | "network-create" | { afterMs: number };
  /** `pull`: whose image is pulled first, the Service proxy's (made absent first) or the pod's (`imagePullPolicy: Always`). */
  pullOf?: "proxy" | "pod";
  phase: "before" | "after" | "during";
  /** `during`: seconds between the command's start and the kill. */
  delaySeconds?: number;
  /** What comes after the kill: `down`, or `up` (over what the kill left) then `down`. */
  recovery: "down-first" | "up-first";
}

export interface KillShim {
  /** Put first on PATH. */
  binDir: string;
  /** One directory per engine call, named by its number. */
  callsDir: string;
  /** The environment of a `podrun up` killed at `point` (none for a timed kill). */
  envFor(point?: KillPoint): Record<string, string>;
}

/** One engine call the shim saw. */
export interface EngineCall {
  index: number;
  pid: number;
  /** The first four arguments. */
  args: string;
  /** The phase it was killed in, when this call was the kill point. */
  killed?: string;
}

/** Writes the shim for `runtime` into `dir`; undefined when the real binary is not on PATH. */
export async function writeKillShim(dir: string, runtime: RuntimeName): Promise<KillShim | undefined> {
  const real = (process.env.PATH ?? "")
    .split(":")
    .map((d) => join(d, runtime))
    .find((path) => existsSync(path));
  if (!real) return undefined;
  const binDir = join(dir, "bin");
  const callsDir = join(dir, "calls");
  await mkdir(binDir, { recursive: true });
  await mkdir(callsDir, { recursive: true });
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const script = `#!/bin/sh
d=${q(callsDir)}
n=1
while ! mkdir "$d/$n" 2>/dev/null; do n=$((n+1)); done
echo $$ > "$d/$n/pid"
printf '%s ' "$1" "$2" "$3" "$4" > "$d/$n/args"
at="\${PODRUN_KILL_AT:-}"
if [ "$at" = pull ] && [ "$1" = pull ] && mkdir "$d/pull-hit" 2>/dev/null; then at=$n; fi
if [ "$at" = network-create ] && [ "$1 $2" = "network create" ] && mkdir "$d/net-hit" 2>/dev/null; then at=$n; fi
if [ "$n" = "$at" ]; then
  echo "$PODRUN_KILL_PHASE" > "$d/$n/killed"
  case "$PODRUN_KILL_PHASE" in
    before) kill -9 $PPID; exit 137 ;;
    after) ${q(real)} "$@"; rc=$?; kill -9 $PPID; exit $rc ;;
    during)
      exec 3<&0
      ${q(real)} "$@" <&3 3<&- &
      c=$!
      sleep "\${PODRUN_KILL_DELAY:-0}"
      kill -9 $PPID $c 2>/dev/null
      wait $c
      exit 137 ;;
  esac
fi
exec ${q(real)} "$@"
`;
  await writeFile(join(binDir, runtime), script, { mode: 0o755 });
  return {
    binDir,
    callsDir,
    envFor: (point) => {
      const env: Record<string, string> = { PATH: `${binDir}:${process.env.PATH ?? ""}` };
      if (point && typeof point.at !== "object") {
        env.PODRUN_KILL_AT = String(point.at);
        env.PODRUN_KILL_PHASE = point.phase;
        if (point.delaySeconds !== undefined) env.PODRUN_KILL_DELAY = point.delaySeconds.toFixed(3);
      }
      return env;
    },
  };
}

/** The calls recorded in `callsDir`, by number. */
export async function readEngineCalls(callsDir: string): Promise<EngineCall[]> {
  const names = (await readdir(callsDir)).filter((name) => /^\d+$/.test(name));
  const calls = await Promise.all(
    names.map(async (name): Promise<EngineCall> => {
      const dir = join(callsDir, name);
      const read = (file: string) => readFile(join(dir, file), "utf8").catch(() => "");
      const [pid, args, killed] = await Promise.all([read("pid"), read("args"), read("killed")]);
      return {
        index: Number(name),
        pid: Number(pid.trim()),
        args: args.trim(),
        ...(killed ? { killed: killed.trim() } : {}),
      };
    }),
  );
  return calls.sort((a, b) => a.index - b.index);
}

/** Empties `callsDir` for the next run. */
export async function resetEngineCalls(callsDir: string): Promise<void> {
  await rm(callsDir, { recursive: true, force: true });
  await mkdir(callsDir);
}

// A process is gone once /proc has no entry for it or only its zombie (an orphan may be
// reparented to a PID 1 that does not reap).
async function isAlive(pid: number): Promise<boolean> {
  if (!(pid > 0)) return false;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (stat === undefined) return false;
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

/**
 * Resolves once every engine call of a killed run has ended (an orphaned `create` may still be
 * making its container): the engine's state is then what the dead run left. Bounded by `timeoutMs`;
 * resolves with the calls still running then (empty when all ended).
 */
export async function waitForEngineCalls(callsDir: string, timeoutMs = 30_000): Promise<EngineCall[]> {
  const deadline = Date.now() + timeoutMs;
  let seen = -1;
  for (;;) {
    const calls = await readEngineCalls(callsDir);
    const running = [];
    for (const call of calls) if (await isAlive(call.pid)) running.push(call);
    // A shim spawned just before the kill may not have numbered itself yet: the set must hold still too.
    if (running.length === 0 && calls.length === seen) return [];
    if (Date.now() > deadline) return running;
    seen = running.length === 0 ? calls.length : -1;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** FNV-1a of `text`: a 32-bit seed. */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash;
}

/**
 * The run's seed and where it came from: $PODRUN_KILL_SEED, else the commit's (`git rev-parse
 * HEAD`, hashed: a run is the same at one commit, and each commit kills at points of its own),
 * else a fixed one (no git, or not a checkout).
 */
export function killSeed(
  env: NodeJS.ProcessEnv = process.env,
  readCommit: () => string | undefined = headCommit,
): { seed: number; from: string } {
  if (env.PODRUN_KILL_SEED !== undefined && env.PODRUN_KILL_SEED !== "")
    return { seed: Number(env.PODRUN_KILL_SEED) >>> 0, from: "PODRUN_KILL_SEED" };
  const commit = readCommit();
  if (commit) return { seed: seedOf(commit), from: `commit ${commit.slice(0, 12)}` };
  return { seed: 20261201, from: "the fixed seed, no git commit" };
}

function headCommit(): string | undefined {
  try {
    const out = execFileSync("git", ["rev-parse", "HEAD"], {
      cwd: dirname(fileURLToPath(import.meta.url)),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 10_000,
    }).trim();
    return /^[0-9a-f]{40,64}$/.test(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

export const { seed: KILL_SEED, from: KILL_SEED_FROM } = killSeed();
/** $PODRUN_KILL_CASE: only the case of that number (to replay a failure). */
export const KILL_ONLY = process.env.PODRUN_KILL_CASE === undefined ? undefined : Number(process.env.PODRUN_KILL_CASE);

/**
 * The kill points of a run, drawn from the seed and the number of engine calls a whole `up` makes
 * (with the cluster network there): `count` distinct calls, always the first and the last (all of
 * them when there are no more), each in a phase drawn for it (a `during` kill with a delay of up to
 * `maxDelaySeconds`), then `timed` kills at delays up to `upMs`, then, when `pull`, one kill at the
 * first pull (the proxy's image or the pod's, during it or after it), and when `network`, one at
 * the cluster network's create. Each point's recovery is drawn too, but a pull's, which is `up`.
 */
export function drawKillPoints(options: {
  seed: number;
  calls: number;
  count: number;
  timed: number;
  upMs: number;
  pull: boolean;
  network?: boolean;
  maxDelaySeconds?: number;
}): KillPoint[] {
  const random = createRandom(options.seed);
  const phases = ["before", "after", "during"] as const;
  const delay = () => Math.round(random.next() * (options.maxDelaySeconds ?? 0.15) * 1000) / 1000;
  const recovery = (): KillPoint["recovery"] => (random.chance(0.5) ? "down-first" : "up-first");
  const phased = (at: number | "network-create"): KillPoint => {
    const phase = random.pick(phases);
    return phase === "during"
      ? { at, phase, delaySeconds: delay(), recovery: recovery() }
      : { at, phase, recovery: recovery() };
  };
  // The calls between the first and the last; a seeded choice of them, kept in call order.
  const middle = Array.from({ length: Math.max(0, options.calls - 2) }, (_, i) => i + 2);
  while (middle.length > Math.max(0, options.count - 2)) middle.splice(random.int(middle.length), 1);
  const at = options.calls <= 1 ? [1].slice(0, options.calls) : [1, ...middle, options.calls];
  const points: KillPoint[] = at.map(phased);
  for (let i = 0; i < options.timed; i++)
    points.push({ at: { afterMs: Math.round(random.next() * options.upMs) }, phase: "during", recovery: recovery() });
  // A kill at a pull is followed by `up`: the place where what the dead run recorded (a pull's
  // back-off, a half-pulled image) could keep the next run from coming up.
  if (options.pull) {
    const pullOf = random.pick(["proxy", "pod"] as const);
    points.push(
      random.chance(0.5)
        ? { at: "pull", pullOf, phase: "during", delaySeconds: delay(), recovery: "up-first" }
        : { at: "pull", pullOf, phase: "after", recovery: "up-first" },
    );
  }
  if (options.network) points.push(phased("network-create"));
  return points;
}

/** A point as test names and replay hints show it. */
export function describeKillPoint(point: KillPoint): string {
  if (typeof point.at === "object") return `${point.at.afterMs} ms after the start`;
  const where =
    point.at === "pull"
      ? `the first pull (${point.pullOf === "proxy" ? "the Service proxy's image" : "the pod's image"})`
      : point.at === "network-create"
        ? "the cluster network's create"
        : `engine call ${point.at}`;
  return point.phase === "during" ? `${where}, ${point.delaySeconds} s into it` : `${point.phase} ${where}`;
}
