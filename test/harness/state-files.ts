// Reads a podrun state directory the way a test checks it after a crash or a race: every line of
// the event log, the back-off file, and whatever should not be left there (locks, temp files).
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

export interface LoggedEvent {
  metadata: { name: string };
  involvedObject: { name: string; namespace: string; fieldPath?: string };
  reason: string;
  message: string;
  count: number;
}

/** The lines of `events.ndjson`, each parsed; `invalid` holds the 1-based numbers of lines that are not events. */
export async function readEventLines(dir: string): Promise<{ events: LoggedEvent[]; invalid: number[]; text: string }> {
  const text = await readFile(join(dir, "events.ndjson"), "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  const events: LoggedEvent[] = [];
  const invalid: number[] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  lines.forEach((line, i) => {
    if (line === "") return;
    try {
      const event = JSON.parse(line) as LoggedEvent & { kind?: string };
      if (event.kind === "Event") return void events.push(event);
    } catch {
      // counted below
    }
    invalid.push(i + 1);
  });
  return { events, invalid, text };
}

export interface BackoffFile {
  version: number;
  entries: Record<string, { backoffMs: number; lastUpdate: string; lastError?: string }>;
}

/** `backoff.json` parsed (it throws if the file does not parse). */
export async function readBackoffFile(dir: string): Promise<BackoffFile> {
  return JSON.parse(await readFile(join(dir, "backoff.json"), "utf8")) as BackoffFile;
}

/** Names in the state directory that only a crash or a bug leaves: locks, their debris, temp files. */
export async function listStateLeftovers(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => /\.lock(\..*)?$|\.tmp$|\.old$/.test(name));
}

/** One event's identity in the log: a repeat is a later line with the same name and count + 1. */
export const eventId = (event: LoggedEvent): string => `${event.metadata.name}#${event.count}`;
