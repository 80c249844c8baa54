// The floor for listing the event log in JavaScript: read the same files `podrun events` reads
// (events.ndjson.3 … .1, then events.ndjson) and JSON.parse every line, nothing else. bench/events.ts
// runs it beside the real listing. Usage: node bench/bare-parse.mjs STATE_DIR
import { readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
let events = 0;
for (const name of ["events.ndjson.3", "events.ndjson.2", "events.ndjson.1", "events.ndjson"]) {
  let text;
  try {
    text = readFileSync(join(dir, name), "utf8");
  } catch {
    continue;
  }
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      if (JSON.parse(line).kind === "Event") events++;
    } catch {
      // a torn line
    }
  }
}
process.stdout.write(`${events}\n`);
