import type { EventSink } from "../events/recorder.js";

/** Events as NDJSON: one core/v1 Event object per line, a repeat printed again with its new count. */
export function createJsonSink(stream: NodeJS.WritableStream = process.stdout): EventSink {
  return { write: (event) => void stream.write(`${JSON.stringify(event)}\n`) };
}
