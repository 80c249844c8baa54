import { mkdir, readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../state/atomic-write.js";

// What podrun keeps of a Job between commands, one file per Job and engine under
// `<state dir>/jobs/<engine>/<namespace>_<name>.json`: when it started (its activeDeadlineSeconds
// runs from there) and how and when it finished (a re-up does not run a finished Job again, and
// ttlSecondsAfterFinished counts from then). Its pods are read back from the engine, never from
// here. One writer per Job at a time: the `up` that runs it, or the command that removes it after
// its TTL; each write replaces the whole file atomically, and a reader that finds no file, or one
// it cannot read, starts from the engine alone.

export interface JobRecord {
  namespace: string;
  name: string;
  /** status.startTime, ms since the epoch. */
  startTime?: number;
  /** The terminal condition, once the Job has one. */
  finished?: { type: "Complete" | "Failed"; reason: string; message: string; at: number };
  ttlSecondsAfterFinished?: number;
  /** spec.completions and spec.parallelism as the controller read them, for `get job`'s COMPLETIONS. */
  completions?: number;
  parallelism?: number;
}

export function jobsDirectory(stateDir: string, engine: string): string {
  return join(stateDir, "jobs", engine);
}

function jobFile(stateDir: string, engine: string, job: { namespace: string; name: string }): string {
  // `_` is in no Kubernetes name: the file name is unambiguous, as the engine's container names are.
  return join(jobsDirectory(stateDir, engine), `${job.namespace}_${job.name}.json`);
}

export async function readJobRecord(
  stateDir: string,
  engine: string,
  job: { namespace: string; name: string },
): Promise<JobRecord | undefined> {
  // No record: the Job has not run here, or its record was removed.
  return parseJobRecord(await readFile(jobFile(stateDir, engine, job), "utf8").catch(() => undefined));
}

export async function writeJobRecord(stateDir: string, engine: string, record: JobRecord): Promise<void> {
  await mkdir(jobsDirectory(stateDir, engine), { recursive: true, mode: 0o700 });
  await writeFileAtomic(jobFile(stateDir, engine, record), `${JSON.stringify(record)}\n`);
}

export async function removeJobRecord(
  stateDir: string,
  engine: string,
  job: { namespace: string; name: string },
): Promise<void> {
  // Already gone: removing a record is idempotent.
  await unlink(jobFile(stateDir, engine, job)).catch(() => undefined);
}

/** Every Job recorded for `engine`; unreadable files are skipped. */
export async function listJobRecords(stateDir: string, engine: string): Promise<JobRecord[]> {
  const names = await readdir(jobsDirectory(stateDir, engine)).catch(() => [] as string[]);
  const records = await Promise.all(
    names
      .filter((n) => n.endsWith(".json"))
      .map(async (n) =>
        // A record removed meanwhile reads as none.
        parseJobRecord(await readFile(join(jobsDirectory(stateDir, engine), n), "utf8").catch(() => undefined)),
      ),
  );
  return records.filter((r): r is JobRecord => r !== undefined);
}

/** A record read leniently: anything not of the expected shape is no record. */
export function parseJobRecord(text: string | undefined): JobRecord | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
    // A record cut short by a crash reads as none: the Job is picked up from its pods.
  } catch {
    return undefined;
  }
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.namespace !== "string" || typeof v.name !== "string") return undefined;
  const record: JobRecord = { namespace: v.namespace, name: v.name };
  if (typeof v.startTime === "number") record.startTime = v.startTime;
  if (typeof v.ttlSecondsAfterFinished === "number") record.ttlSecondsAfterFinished = v.ttlSecondsAfterFinished;
  if (typeof v.completions === "number") record.completions = v.completions;
  if (typeof v.parallelism === "number") record.parallelism = v.parallelism;
  const f = v.finished as Record<string, unknown> | undefined;
  if (f && (f.type === "Complete" || f.type === "Failed") && typeof f.at === "number") {
    record.finished = {
      type: f.type,
      reason: typeof f.reason === "string" ? f.reason : "",
      message: typeof f.message === "string" ? f.message : "",
      at: f.at,
    };
  }
  return record;
}

/** When the TTL-after-finished controller deletes the Job's pods, if it does. */
export function expiryOf(record: JobRecord): number | undefined {
  if (!record.finished || record.ttlSecondsAfterFinished === undefined) return undefined;
  return record.finished.at + record.ttlSecondsAfterFinished * 1000;
}
