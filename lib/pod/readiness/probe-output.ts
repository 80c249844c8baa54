import { escapeControlCharacters } from "../../text/terminal-text.js";

// A probe's output as events and messages show it.

/** Events carry at most this much of a probe's output (the kubelet keeps up to 10 KiB). */
export const MAX_EVENT_OUTPUT_CHARS = 1024;
const MAX_LINE_CHARS = 200;

/** A probe's output for an event: no terminal control characters, and not too long. */
export function clipOutput(text: string): string {
  const clean = text
    .trim()
    .split("\n")
    .map((line) => escapeControlCharacters(line.replace(/\r$/, "")))
    .join("\n");
  return clean.length > MAX_EVENT_OUTPUT_CHARS ? `${clean.slice(0, MAX_EVENT_OUTPUT_CHARS)}... (truncated)` : clean;
}

/** A probe's output on one line of a message, cut at 200 characters. */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS - 3)}...` : line;
}
