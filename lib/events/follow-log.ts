import { watch, type FSWatcher } from "node:fs";
import { stat } from "node:fs/promises";
import { DEFAULT_KEPT_FILES, logFilePath, openLogFile } from "./log-files.js";
import type { LogFileReader } from "./log-file-reader.js";

// `podrun events --watch`: hands on every line appended to the log after the listing, until the
// signal aborts. It wakes on fs.watch of the state directory (which also sees the renames of a
// rotation) and every `pollMs` anyway, since fs.watch can miss events or be unavailable (network
// file systems, a directory created later). After a rotation the old file is read to its end,
// then the new one from its start; the old one is still read for `graceMs`, because a writer that
// checked the path just before the rotation may write its line there a moment after. Several
// rotations between two wake-ups (a busy machine, a small size limit) leave files that were
// current only in between: they are found among the old files by inode, and read in order.

export interface FollowOptions {
  dir: string;
  /** The current file where the listing stopped reading; undefined if there was none. */
  reader: LogFileReader | undefined;
  /** Whole lines, in log order (a torn line too, once its file is given up: it fails to parse). */
  onLines: (lines: string[]) => void;
  signal: AbortSignal;
  pollMs?: number;
  graceMs?: number;
  /** Inodes of the files the listing read (the old files among them): never read twice. */
  seenInos?: Iterable<number>;
  keep?: number;
}

export async function followEventLog({
  dir,
  reader,
  onLines,
  signal,
  pollMs = 250,
  graceMs = 2000,
  seenInos = [],
  keep = DEFAULT_KEPT_FILES,
}: FollowOptions): Promise<void> {
  const file = logFilePath(dir);
  let current = reader;
  const seen = new Set(seenInos);
  if (reader) seen.add(reader.ino);
  const retired: { reader: LogFileReader; until: number }[] = [];
  const waker = createWaker(dir, signal);

  const drain = async (from: LogFileReader): Promise<void> => {
    for await (const lines of from.readLines()) onLines(lines);
  };
  const retire = async (old: LogFileReader): Promise<void> => {
    await drain(old);
    const torn = old.takePending();
    if (torn !== "") onLines([torn]);
    await old.close();
  };

  const step = async (): Promise<void> => {
    for (const old of [...retired]) {
      if (Date.now() < old.until) await drain(old.reader);
      else {
        retired.splice(retired.indexOf(old), 1);
        await retire(old.reader);
      }
    }
    if (current) await drain(current);
    // A stat error reads as no file: the path is looked at again at the next wake-up.
    const ino = await stat(file).then(
      (info) => info.ino,
      () => undefined,
    );
    if (ino === undefined || ino === current?.ino) return; // no file yet, or still the same one
    if (current) {
      await drain(current);
      retired.push({ reader: current, until: Date.now() + graceMs });
    }
    // Old files never read: current for a moment between two wake-ups. Oldest first.
    for (let generation = keep; generation >= 1; generation--) {
      const missed = await openLogFile(logFilePath(dir, generation));
      if (!missed || seen.has(missed.ino)) {
        await missed?.close();
        continue;
      }
      seen.add(missed.ino);
      await drain(missed);
      retired.push({ reader: missed, until: Date.now() + graceMs });
    }
    current = await openLogFile(file);
    if (current) {
      seen.add(current.ino);
      await drain(current);
    }
  };

  try {
    while (!signal.aborted) {
      await step();
      await waker.wait(pollMs);
    }
  } finally {
    waker.close();
    const open = [current, ...retired.map((old) => old.reader)].filter((reader) => reader !== undefined);
    await Promise.all(open.map((reader) => reader.close()));
  }
}

/** Resolves `wait` on a change in `dir`, after `ms`, or on abort, whichever comes first. */
function createWaker(dir: string, signal: AbortSignal): { wait(ms: number): Promise<void>; close(): void } {
  let changed = false;
  let wakeUp: (() => void) | undefined;
  let watcher: FSWatcher | undefined;
  const onChange = () => {
    changed = true;
    wakeUp?.();
  };
  try {
    watcher = watch(dir, { persistent: true }, onChange);
    watcher.on("error", () => {
      watcher?.close();
      watcher = undefined; // polling carries on alone
    });
  } catch {
    watcher = undefined; // no directory yet, or no inotify: poll
  }
  return {
    wait: (ms) =>
      new Promise<void>((resolve) => {
        if (changed || signal.aborted) {
          changed = false;
          resolve();
          return;
        }
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          wakeUp = undefined;
          changed = false;
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal.addEventListener("abort", done, { once: true });
        wakeUp = done;
      }),
    close: () => watcher?.close(),
  };
}
