import t from "tap";
import type { Event } from "kubernetes-types/core/v1.js";
import { Writable } from "node:stream";
import { createJsonSink } from "../../lib/output/json-sink.js";
import { createRecorder } from "../../lib/events/recorder.js";
import { toInvolvedObject } from "../../lib/events/types.js";

t.test("NDJSON: one core/v1 Event per line, a repeat again with its count", async (t) => {
  let text = "";
  const out = new Writable({ write: (chunk: Buffer, _encoding, callback) => ((text += chunk.toString()), callback()) });
  const recorder = createRecorder({
    sinks: [createJsonSink(out)],
    clock: () => Date.parse("2025-03-01T12:00:00Z"),
    host: "h",
  });
  const object = toInvolvedObject({ name: "web", namespace: "default", uid: "u" }, { name: "app" });
  recorder.event(object, "Normal", "Pulling", 'Pulling image "busybox"');
  recorder.event(object, "Normal", "Pulling", 'Pulling image "busybox"');
  const lines = text.split("\n");
  t.equal(lines.pop(), "", "ends with a newline");
  t.equal(lines.length, 2);
  const [first, second] = lines.map((line) => JSON.parse(line) as Event) as [Event, Event];
  t.match(first, {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: /^web\.[0-9a-f]+$/, namespace: "default" },
    involvedObject: {
      kind: "Pod",
      name: "web",
      namespace: "default",
      uid: "u",
      apiVersion: "v1",
      fieldPath: "spec.containers{app}",
    },
    reason: "Pulling",
    message: 'Pulling image "busybox"',
    type: "Normal",
    source: { component: "podrun", host: "h" },
    firstTimestamp: "2025-03-01T12:00:00Z",
    lastTimestamp: "2025-03-01T12:00:00Z",
    count: 1,
    reportingComponent: "podrun",
  });
  t.equal(second.metadata.name, first.metadata.name);
  t.equal(second.count, 2);
});

t.test("writes to standard output by default", async (t) => {
  const writes: string[] = [];
  const original = process.stdout.write;
  process.stdout.write = (chunk: string) => (writes.push(chunk), true);
  try {
    createJsonSink().write({ kind: "Event" } as never);
  } finally {
    process.stdout.write = original;
  }
  t.same(writes, ['{"kind":"Event"}\n']);
});
