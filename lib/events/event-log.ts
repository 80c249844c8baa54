import { createReadStream } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ensureStateDir } from "../state/paths.js";
import { describeFsError, StateAccessError } from "../state/state-error.js";
import type { EventLogWriter } from "./recorder.js";
import type { KubeEvent } from "./types.js";

// The event log: `<state dir>/events.ndjson`, one Event per line, appended by every podrun run.
// Each line goes out in one write(2) on a file opened with O_APPEND, so lines from concurrent
// runs never interleave. A repeated event appears again with its new count and lastTimestamp
// under the same metadata.name: readers keep the last line of each name. (Rotation: later.)

export const EVENT_LOG_FILE = "events.ndjson";

export interface EventLog extends EventLogWriter {
  close(): Promise<void>;
}

/** Opens (creating if needed) the event log of `dir` for appending. */
export async function openEventLog(dir: string): Promise<EventLog> {
  await ensureStateDir(dir);
  const file = join(dir, EVENT_LOG_FILE);
  let handle: FileHandle;
  try {
    handle = await open(file, "a", 0o600);
  } catch (error) {
    throw new StateAccessError(file, `cannot open event log ${file}: ${describeFsError(error)}`, { cause: error });
  }
  return {
    async append(event) {
      const line = Buffer.from(`${JSON.stringify(event)}\n`, "utf8");
      const { bytesWritten } = await handle.write(line).catch((error: unknown) => {
        throw new StateAccessError(file, `cannot write event log ${file}: ${describeFsError(error)}`, { cause: error });
      });
      // Only a full disk writes short; what was written is a torn line that readers skip.
      if (bytesWritten !== line.length) throw new StateAccessError(file, `cannot write event log ${file}: short write (disk full?)`);
    },
    close: () => handle.close(),
  };
}

export interface ReadEventLogOptions {
  /** Told about each line that is not an event (a torn line from a crash or a full disk). */
  onInvalidLine?: (lineNumber: number) => void;
}

/** The events of `dir`'s log in file order, streamed; a missing log has none; torn lines are skipped. */
export async function* readEventLog(dir: string, options: ReadEventLogOptions = {}): AsyncGenerator<KubeEvent> {
  const file = join(dir, EVENT_LOG_FILE);
  const stream = createReadStream(file, { encoding: "utf8" });
  const opened = await new Promise<boolean>((resolve, reject) => {
    stream.once("ready", () => resolve(true));
    stream.once("error", (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? resolve(false) : reject(error)));
  }).catch((error: unknown) => {
    throw new StateAccessError(file, `cannot read event log ${file}: ${describeFsError(error)}`, { cause: error });
  });
  if (!opened) return;
  let lineNumber = 0;
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    lineNumber++;
    if (line === "") continue;
    const event = parseEvent(line);
    if (event) yield event;
    else options.onInvalidLine?.(lineNumber);
  }
}

function parseEvent(line: string): KubeEvent | undefined {
  try {
    const value = JSON.parse(line) as Partial<KubeEvent> | null;
    if (value?.kind === "Event" && typeof value.metadata?.name === "string" && typeof value.involvedObject === "object") return value as KubeEvent;
  } catch {
    // a torn line: fall through
  }
  return undefined;
}
