import t from "tap";
import { EventReason, EventType } from "../../lib/events/reasons.js";
import { createRecorder, toApiTime } from "../../lib/events/recorder.js";
import { containerNameOf, toInvolvedObject, type KubeEvent } from "../../lib/events/types.js";

const POD = { name: "web", namespace: "ci", uid: "3f1c-uid" };
const APP = toInvolvedObject(POD, { name: "app" });
const T0 = Date.parse("2025-03-01T12:00:00.250Z");

function setup(options: { log?: { append(e: KubeEvent): Promise<void> } } = {}) {
  const clock = { now: T0 };
  const seen: KubeEvent[] = [];
  const recorder = createRecorder({
    sinks: [{ write: (e) => seen.push(e) }],
    clock: () => clock.now,
    host: "ci-runner",
    ...options,
  });
  return { clock, seen, recorder };
}

t.test("a new event is a core/v1 Event as the kubelet's recorder builds it", async (t) => {
  const { recorder, seen } = setup();
  const event = recorder.event(APP, EventType.Normal, EventReason.Pulling, 'Pulling image "busybox"');
  t.same(event, {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `web.${(BigInt(T0) * 1_000_000n).toString(16)}`, namespace: "ci" },
    involvedObject: {
      apiVersion: "v1",
      kind: "Pod",
      name: "web",
      namespace: "ci",
      uid: "3f1c-uid",
      fieldPath: "spec.containers{app}",
    },
    reason: "Pulling",
    message: 'Pulling image "busybox"',
    type: "Normal",
    source: { component: "podrun", host: "ci-runner" },
    firstTimestamp: "2025-03-01T12:00:00Z",
    lastTimestamp: "2025-03-01T12:00:00Z",
    count: 1,
    reportingComponent: "podrun",
    reportingInstance: "ci-runner",
  });
  t.same(seen, [event], "handed to the sink");
});

t.test(
  "a repeat (same object, type, reason and message) keeps name and first time, counts, and updates the last time",
  async (t) => {
    const { recorder, clock, seen } = setup();
    const first = recorder.event(APP, "Normal", "BackOff", 'Back-off pulling image "x"');
    clock.now += 12_000;
    const second = recorder.event(APP, "Normal", "BackOff", 'Back-off pulling image "x"');
    clock.now += 30_000;
    const third = recorder.event(APP, "Normal", "BackOff", 'Back-off pulling image "x"');
    t.equal(second.metadata.name, first.metadata.name);
    t.equal(third.metadata.name, first.metadata.name);
    t.same([first.count, second.count, third.count], [1, 2, 3]);
    t.equal(third.firstTimestamp, "2025-03-01T12:00:00Z");
    t.equal(third.lastTimestamp, "2025-03-01T12:00:42Z");
    t.equal(first.count, 1, "earlier objects are not mutated");
    t.equal(seen.length, 3, "every occurrence reaches the sinks");
  },
);

t.test("anything different is a new event: message, reason, type, container or pod UID", async (t) => {
  const { recorder } = setup();
  const base = recorder.event(APP, "Normal", "Pulled", "m");
  const variants = [
    recorder.event(APP, "Normal", "Pulled", "m2"),
    recorder.event(APP, "Normal", "Pulling", "m"),
    recorder.event(APP, "Warning", "Pulled", "m"),
    recorder.event(toInvolvedObject(POD, { name: "side" }), "Normal", "Pulled", "m"),
    recorder.event(toInvolvedObject(POD, { name: "app", init: true }), "Normal", "Pulled", "m"),
    recorder.event(toInvolvedObject({ ...POD, uid: "other" }, { name: "app" }), "Normal", "Pulled", "m"),
    recorder.event(toInvolvedObject(POD), "Normal", "Pulled", "m"),
  ];
  t.ok(variants.every((e) => e.count === 1));
  const names = new Set([base, ...variants].map((e) => e.metadata.name));
  t.equal(names.size, 8, "names are unique even within one millisecond");
});

t.test("names increase with the clock and stay unique within a millisecond", async (t) => {
  const { recorder, clock } = setup();
  const a = recorder.event(APP, "Normal", "A", "1");
  const b = recorder.event(APP, "Normal", "B", "1");
  clock.now += 1;
  const c = recorder.event(APP, "Normal", "C", "1");
  const nanos = [a, b, c].map((e) => BigInt(`0x${e.metadata.name.split(".")[1]}`));
  t.same(nanos, [BigInt(T0) * 1_000_000n, BigInt(T0) * 1_000_000n + 1n, BigInt(T0 + 1) * 1_000_000n]);
});

t.test("the log gets every event in recording order, even when appends take different times", async (t) => {
  const logged: string[] = [];
  const delays = [30, 0, 10, 0];
  const { recorder } = setup({
    log: {
      append: (e) =>
        new Promise((resolve) =>
          setTimeout(() => resolve(void logged.push(`${e.reason}#${e.count}`)), delays.shift() ?? 0),
        ),
    },
  });
  recorder.event(APP, "Normal", "Pulling", "p");
  recorder.event(APP, "Normal", "Pulled", "p");
  recorder.event(APP, "Normal", "Created", "c");
  recorder.event(APP, "Normal", "Created", "c");
  await recorder.flush();
  t.same(logged, ["Pulling#1", "Pulled#1", "Created#1", "Created#2"]);
});

t.test("flush reports a failed append once; recording goes on", async (t) => {
  let fail = true;
  const logged: string[] = [];
  const { recorder, seen } = setup({
    log: {
      append: async (e) =>
        fail ? ((fail = false), Promise.reject(new Error("disk full"))) : void logged.push(e.reason),
    },
  });
  recorder.event(APP, "Normal", "A", "a");
  recorder.event(APP, "Normal", "B", "b");
  await t.rejects(recorder.flush(), { message: "disk full" });
  await recorder.flush();
  t.same(logged, ["B"]);
  t.equal(seen.length, 2);
});

t.test("toApiTime drops milliseconds, as the API serializes metav1.Time", async (t) => {
  t.equal(toApiTime(Date.parse("2025-03-01T12:00:00.999Z")), "2025-03-01T12:00:00Z");
});

t.test("container names come back out of field paths", async (t) => {
  t.equal(containerNameOf(toInvolvedObject(POD, { name: "app" })), "app");
  t.equal(containerNameOf(toInvolvedObject(POD, { name: "init-db", init: true })), "init-db");
  t.equal(containerNameOf(toInvolvedObject(POD, { fieldPath: "spec.containers{side}" })), "side");
  t.equal(containerNameOf(toInvolvedObject(POD)), undefined);
});
