import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
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
// PODRUN_KILL_AT=pull kills at the first `pull`. Unset, it only numbers the calls: a timed kill
// and the calibration run use that to know when every orphaned engine call has ended.

/** Where and how a run is killed. */
export interface KillPoint {
  /** 1-based engine call number, `pull` (the first pull), or a delay after the start (a timed kill). */
  at: number | "pull" | { afterMs: number };
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

/** The run's seed: $PODRUN_KILL_SEED, else a fixed one (CI kills at the same points every time). */
export const KILL_SEED = Number(process.env.PODRUN_KILL_SEED ?? 20261201) >>> 0;
/** $PODRUN_KILL_CASE: only the case of that number (to replay a failure). */
export const KILL_ONLY = process.env.PODRUN_KILL_CASE === undefined ? undefined : Number(process.env.PODRUN_KILL_CASE);

/**
 * The kill points of a run, drawn from the seed and the number of engine calls a whole `up` makes:
 * `count` distinct calls (all of them when there are no more), each in a phase drawn for it (a
 * `during` kill with a delay of up to `maxDelaySeconds`), then `timed` kills at delays up to
 * `upMs`, and, when `pull`, a kill during the first pull and one after it. Each point's recovery
 * is drawn too, but a pull's, which is `up`.
 */
export function drawKillPoints(options: {
  seed: number;
  calls: number;
  count: number;
  timed: number;
  upMs: number;
  pull: boolean;
  maxDelaySeconds?: number;
}): KillPoint[] {
  const random = createRandom(options.seed);
  const phases = ["before", "after", "during"] as const;
  const delay = () => Math.round(random.next() * (options.maxDelaySeconds ?? 0.15) * 1000) / 1000;
  const recovery = (): KillPoint["recovery"] => (random.chance(0.5) ? "down-first" : "up-first");
  const at = Array.from({ length: options.calls }, (_, i) => i + 1);
  // A seeded choice of `count` calls, kept in call order.
  while (at.length > options.count) at.splice(random.int(at.length), 1);
  const points: KillPoint[] = at.map((call) => {
    const phase = random.pick(phases);
    return phase === "during"
      ? { at: call, phase, delaySeconds: delay(), recovery: recovery() }
      : { at: call, phase, recovery: recovery() };
  });
  for (let i = 0; i < options.timed; i++)
    points.push({ at: { afterMs: Math.round(random.next() * options.upMs) }, phase: "during", recovery: recovery() });
  // A kill at a pull is followed by `up`: the place where what the dead run recorded (a pull's
  // back-off, a half-pulled image) could keep the next run from coming up.
  if (options.pull)
    points.push(
      { at: "pull", phase: "during", delaySeconds: delay(), recovery: "up-first" },
      { at: "pull", phase: "after", recovery: "up-first" },
    );
  return points;
}

/** A point as test names and replay hints show it. */
export function describeKillPoint(point: KillPoint): string {
  if (typeof point.at === "object") return `${point.at.afterMs} ms after the start`;
  const where = point.at === "pull" ? "the first pull" : `engine call ${point.at}`;
  return point.phase === "during" ? `${where}, ${point.delaySeconds} s into it` : `${point.phase} ${where}`;
}
