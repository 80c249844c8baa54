import { readSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { createEventFilter } from "./event-filter.js";
import { EventFolder } from "./fold.js";
import { foldLines } from "./fold-lines.js";
import { createScannedLine } from "./line-scan.js";
import { LogFileReader } from "./log-file-reader.js";
import type { FoldJob } from "./parallel-fold.js";

// A worker thread of `podrun events` (parallel-fold.ts): folds its parts of the log, read through
// descriptors the main thread opened (threads share them; reads are positional, so nobody's
// position moves), and posts the folder back as plain data. It never closes a descriptor.

const job = workerData as FoldJob;
const folder = new EventFolder();
const filter = createEventFilter(job.filter);
const scratch = createScannedLine();
for (const range of job.ranges) {
  const source = {
    read: (buffer: Buffer, offset: number, length: number, position: number) => Promise.resolve({ bytesRead: readSync(range.fd, buffer, offset, length, position) }),
    close: () => Promise.resolve(),
  };
  const reader = new LogFileReader(source, range.path, 0);
  reader.position = range.start;
  reader.end = range.end;
  for await (const lines of reader.readAppended()) foldLines(folder, filter, scratch, lines);
  // The end of an old file: its unfinished line (torn by a crash) is handed on, and fails to parse.
  if (range.atFileEnd) foldLines(folder, filter, scratch, [reader.takePending()]);
}
parentPort!.postMessage(folder.toState());
