import t from "tap";
import { buildLogsArgs, LogLineMerger, splitTimestamp } from "../../lib/runtime/logs.js";
import type { LogLine } from "../../lib/runtime/types.js";

// The `logs` argv for each CLI (docker 28 / podman 4.3 as run here; nerdctl from its command
// reference), and reading its output back: stamps split off, the two streams merged in order.

const NOW = new Date("2026-01-01T10:00:00.000Z");

t.test("argv: the same flags for docker, podman and nerdctl", async (t) => {
  for (const runtime of ["docker", "podman", "nerdctl"] as const) {
    t.same(buildLogsArgs(runtime, "abc"), ["logs", "--timestamps", "abc"], `${runtime}: everything`);
    t.same(
      buildLogsArgs(runtime, "abc", { follow: true, tail: 2 }),
      ["logs", "--timestamps", "--follow", "--tail", "2", "abc"],
      `${runtime}: follow, tail`,
    );
    t.same(
      buildLogsArgs(runtime, "abc", { since: new Date("2026-01-01T09:55:00.250Z") }),
      ["logs", "--timestamps", "--since", "2026-01-01T09:55:00.250Z", "abc"],
      `${runtime}: --since as an absolute RFC 3339 time`,
    );
  }
});

t.test(
  "argv: --tail 0 is 'nothing' for docker and podman, but 'all' for nerdctl, which gets --since now instead",
  async (t) => {
    t.same(buildLogsArgs("docker", "abc", { tail: 0 }, NOW), ["logs", "--timestamps", "--tail", "0", "abc"]);
    t.same(buildLogsArgs("podman", "abc", { tail: 0 }, NOW), ["logs", "--timestamps", "--tail", "0", "abc"]);
    t.same(buildLogsArgs("nerdctl", "abc", { tail: 0, follow: true }, NOW), [
      "logs",
      "--timestamps",
      "--follow",
      "--since",
      "2026-01-01T10:00:00.000Z",
      "abc",
    ]);
    t.same(
      buildLogsArgs("nerdctl", "abc", { tail: 0, since: new Date("2026-01-01T09:00:00Z") }, NOW),
      ["logs", "--timestamps", "--since", "2026-01-01T10:00:00.000Z", "abc"],
      "the later of --since and now",
    );
  },
);

t.test("splitTimestamp: docker's and podman's stamps; anything else is not a container line", async (t) => {
  t.same(splitTimestamp("2026-11-30T06:35:30.766346627Z out1"), {
    time: "2026-11-30T06:35:30.766346627Z",
    text: "out1",
  });
  t.same(splitTimestamp("2026-11-30T06:35:30Z  two spaces"), { time: "2026-11-30T06:35:30Z", text: " two spaces" });
  t.same(splitTimestamp("2026-11-30T06:35:30.1+01:00 offset"), { time: "2026-11-30T06:35:30.1+01:00", text: "offset" });
  t.same(splitTimestamp("2026-11-30T06:35:30.766Z"), { time: "2026-11-30T06:35:30.766Z", text: "" }, "an empty line");
  t.equal(splitTimestamp("Error response from daemon: No such container: x"), undefined);
  t.equal(splitTimestamp("2026-11-30T06:35:30Zglued"), undefined);
});

const line = (stream: LogLine["stream"], time: string, text: string): LogLine => ({ stream, time, text });

t.test("merger: the older head of the two streams goes first, whatever the arrival order", async (t) => {
  const merger = new LogLineMerger({ holdMs: 50, maxHeld: 10 });
  merger.push(line("stdout", "2026-01-01T10:00:00.3Z", "three"), 0);
  merger.push(line("stdout", "2026-01-01T10:00:00.4Z", "four"), 0);
  merger.push(line("stderr", "2026-01-01T10:00:00.25Z", "two"), 1);
  t.same(
    merger.take(1).map((l) => l.text),
    ["two"],
    "stdout's heads wait for stderr, still open",
  );
  t.equal(merger.nextDueMs(), 50);
  t.same(
    merger.take(49).map((l) => l.text),
    [],
  );
  t.same(
    merger.take(50).map((l) => l.text),
    ["three", "four"],
    "held at most holdMs",
  );
  t.equal(merger.nextDueMs(), undefined);
});

t.test("merger: fractions of different lengths compare as times, not as text", async (t) => {
  const merger = new LogLineMerger({ holdMs: 50, maxHeld: 10 });
  merger.push(line("stdout", "2026-01-01T10:00:00.4Z", "later"), 0);
  merger.push(line("stderr", "2026-01-01T10:00:00.39Z", "earlier"), 0);
  t.same(
    merger.take(0).map((l) => l.text),
    ["earlier"],
  );
  t.same(
    merger.take(0, true).map((l) => l.text),
    ["later"],
    "the end of the read releases everything",
  );
});

t.test("merger: past maxHeld lines the oldest go out at once (bounded memory)", async (t) => {
  const merger = new LogLineMerger({ holdMs: 50, maxHeld: 3 });
  for (let i = 0; i < 5; i++) merger.push(line("stdout", `2026-01-01T10:00:0${i}Z`, `l${i}`), 0);
  t.same(
    merger.take(0).map((l) => l.text),
    ["l0", "l1"],
    "down to maxHeld",
  );
});

t.test("merger: with an infinite hold (a finished log), a line waits for the end or the other stream", async (t) => {
  const merger = new LogLineMerger({ holdMs: Number.POSITIVE_INFINITY, maxHeld: 10 });
  merger.push(line("stderr", "2026-01-01T10:00:09Z", "done"), 0);
  t.same(merger.take(60_000), [], "not released by time");
  t.equal(merger.nextDueMs(), undefined, "no timer to set");
  merger.push(line("stdout", "2026-01-01T10:00:01Z", "1"), 1);
  t.same(
    merger.take(1).map((l) => l.text),
    ["1"],
  );
  t.same(
    merger.take(1, true).map((l) => l.text),
    ["done"],
  );
});
