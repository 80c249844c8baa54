import t, { type Test } from "tap";
import { execa, type ResultPromise } from "execa";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { EVENT_LOG_FILE } from "../../lib/events/event-log.js";
import type { KubeEvent } from "../../lib/events/types.js";
import { stripColor } from "../harness/ansi.js";
import { PODRUN_BIN, runCli } from "../harness/cli.js";
import { makeEvent, makeRepeats, toLines } from "../events/fixtures/make-event.js";

// `podrun events` end to end, through the built CLI (npm run build first), on state directories
// filled by writing NDJSON lines directly. Ages are kept half a minute off the minute, and above
// ten minutes (where kubectl stops showing seconds), so that they print the same however slowly
// the test runs.

const MIN = 60_000;
const NOW = Date.now();
const ago = (minutes: number) => NOW - minutes * MIN - 30_000;

async function stateDir(t: Test, events: readonly KubeEvent[] | string = [], file = EVENT_LOG_FILE): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-events-cli-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, file), typeof events === "string" ? events : toLines(events));
  return dir;
}

const PULLED = makeEvent({ pod: "web", container: "app", name: "web.1", first: ago(50) });
const BACKOFF = makeRepeats({
  pod: "web",
  container: "app",
  name: "web.2",
  reason: "BackOff",
  message: 'Back-off pulling image "busybox:1.36"',
  first: ago(40),
  times: 3,
  everyMs: 10 * MIN,
});
const FAILED = makeEvent({
  pod: "db",
  name: "db.1",
  type: "Warning",
  reason: "Failed",
  message: 'Failed to pull image "db:1": not found',
  first: ago(10),
});
const BASIC = [PULLED, ...BACKOFF, FAILED];

/** The REASON column of each row (a table without NAMESPACE). */
const reasonsOf = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => line.split(/\s{3,}/)[2]);

t.test("a table as kubectl prints events: aligned columns, a repeat as (xN over …), oldest first", async (t) => {
  const result = await runCli(["events", "--state-dir", await stateDir(t, BASIC)]);
  t.equal(result.exitCode, 0);
  t.equal(result.stderr, "");
  t.equal(
    result.stdout,
    [
      "LAST SEEN           TYPE      REASON    OBJECT    MESSAGE",
      '50m                 Normal    Pulled    pod/web   Container image "busybox:1.36" already present on machine',
      '20m (x3 over 40m)   Normal    BackOff   pod/web   Back-off pulling image "busybox:1.36"',
      '10m                 Warning   Failed    pod/db    Failed to pull image "db:1": not found',
      "",
    ].join("\n"),
  );
});

t.test("Warning in yellow when colour is on (FORCE_COLOR), columns unchanged", async (t) => {
  const dir = await stateDir(t, BASIC);
  const plain = await runCli(["events", "--state-dir", dir]);
  const colored = await runCli(["events", "--state-dir", dir], { env: { NO_COLOR: "", FORCE_COLOR: "1" } });
  t.match(colored.stdout, "\u001b[33mWarning\u001b[39m   Failed");
  t.equal(stripColor(colored.stdout), plain.stdout);
  t.notMatch(plain.stdout, "\u001b[");
});

t.test("the same event in several runs (new pod uid each) is one row; rotated files are read first", async (t) => {
  const run1 = makeRepeats({
    pod: "web",
    uid: "run-1",
    name: "web.a",
    reason: "BackOff",
    message: "m",
    first: ago(90),
    times: 2,
    everyMs: MIN,
  });
  const run2 = makeRepeats({
    pod: "web",
    uid: "run-2",
    name: "web.b",
    reason: "BackOff",
    message: "m",
    first: ago(30),
    times: 3,
    everyMs: 5 * MIN,
  });
  const dir = await stateDir(t, run1, `${EVENT_LOG_FILE}.2`);
  await writeFile(join(dir, `${EVENT_LOG_FILE}.1`), toLines(run2.slice(0, 2)));
  await writeFile(join(dir, EVENT_LOG_FILE), toLines(run2.slice(2)));
  const result = await runCli(["events", "--state-dir", dir]);
  t.match(result.stdout, /\n20m \(x5 over 90m\)\s+Normal\s+BackOff\s+pod\/web\s+m\n$/);
  t.equal(result.stdout.split("\n").length, 3, "header and one row");
});

t.test("filters: --pod (or the argument), -n, --type, --reason, --since, --limit", async (t) => {
  const dir = await stateDir(t, BASIC);
  const run = async (...args: string[]) => {
    const result = await runCli(["events", "--state-dir", dir, ...args]);
    t.equal(result.exitCode, 0, args.join(" "));
    return reasonsOf(result.stdout);
  };
  t.same(await run("--pod", "web"), ["Pulled", "BackOff"]);
  t.same(await run("web"), ["Pulled", "BackOff"], "positional pod");
  t.same(await run("--type", "Warning"), ["Failed"]);
  t.same(await run("--reason", "BackOff"), ["BackOff"]);
  t.same(await run("--since", "15m"), ["Failed"], "last seen within 15 minutes");
  t.same(await run("--since", "1h"), ["Pulled", "BackOff", "Failed"]);
  t.same(await run("--since", "25m"), ["BackOff", "Failed"], "a row counts by its last time, not its first");
  t.same(await run("--limit", "2"), ["BackOff", "Failed"], "the most recent rows, still oldest first");
  t.same(await run("--pod", "web", "--type", "Normal", "--limit", "1"), ["BackOff"]);
  t.same(await run("-n", "default", "--reason", "Pulled"), ["Pulled"]);

  const none = await runCli(["events", "--state-dir", dir, "--pod", "nope"]);
  t.same([none.exitCode, none.stdout, none.stderr], [0, "", "No events found.\n"]);
});

t.test("-n picks a namespace; rows from several namespaces get a NAMESPACE column", async (t) => {
  const dir = await stateDir(t, [...BASIC, makeEvent({ pod: "web", namespace: "ci", name: "ci.1", first: ago(15) })]);
  const all = await runCli(["events", "--state-dir", dir]);
  t.match(all.stdout, /^NAMESPACE {3}LAST SEEN\s+TYPE/);
  t.match(all.stdout, /\nci {10}15m {17}Normal {4}Pulled {4}pod\/web {3}Container/);
  const ci = await runCli(["events", "--state-dir", dir, "--namespace", "ci"]);
  t.equal(ci.stdout.split("\n").length, 3);
  t.match(ci.stdout, /^LAST SEEN {3}TYPE/);
});

t.test("--json prints the folded Event objects as NDJSON", async (t) => {
  const result = await runCli(["events", "--json", "--state-dir", await stateDir(t, BASIC)]);
  t.equal(result.exitCode, 0);
  const events = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as KubeEvent);
  t.same(
    events.map((e) => [e.kind, e.reason, e.count]),
    [
      ["Event", "Pulled", 1],
      ["Event", "BackOff", 3],
      ["Event", "Failed", 1],
    ],
  );
  t.same(events[1], { ...BACKOFF[2], count: 3 }, "the last line of the name, as logged");
});

t.test("-o wide adds SUBOBJECT, SOURCE, FIRST SEEN, COUNT and NAME where kubectl has them", async (t) => {
  const result = await runCli(["events", "-o", "wide", "--state-dir", await stateDir(t, BASIC)]);
  const [header, ...rows] = result.stdout.trim().split("\n");
  t.equal(
    header,
    "LAST SEEN   TYPE      REASON    OBJECT    SUBOBJECT              SOURCE              MESSAGE                                                     FIRST SEEN   COUNT     NAME",
  );
  t.same(rows[1]!.split(/\s{3,}/), [
    "20m",
    "Normal",
    "BackOff",
    "pod/web",
    "spec.containers{app}",
    "podrun, ci-runner",
    'Back-off pulling image "busybox:1.36"',
    "40m",
    "3",
    "web.2",
  ]);
  t.same(
    rows[2]!.split(/\s{3,}/),
    [
      "10m",
      "Warning",
      "Failed",
      "pod/db",
      "podrun, ci-runner",
      'Failed to pull image "db:1": not found',
      "10m",
      "1",
      "db.1",
    ],
    "no SUBOBJECT for the pod itself",
  );
});

t.test("a bad --since is a usage error naming the flag and the value", async (t) => {
  const dir = await stateDir(t, BASIC);
  for (const value of ["5x", "10", "-5m", "0s"]) {
    const result = await runCli(["events", "--since", value, "--state-dir", dir]);
    t.equal(result.exitCode, 2, value);
    t.match(result.stderr, new RegExp(`^error: invalid value "${value}" for --since: `), value);
    t.equal(result.stdout, "");
  }
});

t.test("torn and invalid lines are skipped silently", async (t) => {
  const torn = JSON.stringify(makeEvent({ name: "torn" })).slice(0, 150);
  const dir = await stateDir(t, `${toLines([PULLED])}not json\n{"kind":"Pod"}\n\n${toLines([FAILED])}${torn}`);
  const result = await runCli(["events", "--state-dir", dir]);
  t.equal(result.exitCode, 0);
  t.equal(result.stderr, "");
  t.same(reasonsOf(result.stdout), ["Pulled", "Failed"]);
});

t.test("messages show on one line, without terminal control characters", async (t) => {
  const dir = await stateDir(t, [
    makeEvent({ first: ago(10), message: "  first line\nsecond line\u001b[31m  " }),
    makeEvent({ name: "b", first: ago(10), message: "red \u001b[31mtext\ttab" }),
  ]);
  const lines = (await runCli(["events", "--state-dir", dir])).stdout.trim().split("\n");
  t.match(lines[1], / {3}first line\.\.\.$/);
  t.match(lines[2], / {3}red \^\[\[31mtext tab$/);
});

t.test("an empty log, a missing log or a missing state directory: No events found, exit 0", async (t) => {
  const empty = await stateDir(t, "");
  const noLog = await mkdtemp(join(tmpdir(), "podrun-events-cli-"));
  t.teardown(() => rm(noLog, { recursive: true, force: true }));
  for (const dir of [empty, noLog, join(noLog, "missing", "state")]) {
    const result = await runCli(["events", "--state-dir", dir]);
    t.same([result.exitCode, result.stdout, result.stderr], [0, "", "No events found.\n"], dir);
  }
  const viaEnv = await runCli(["events"], { env: { PODRUN_STATE_DIR: join(noLog, "missing") } });
  t.same([viaEnv.exitCode, viaEnv.stderr], [0, "No events found.\n"]);
});

t.test("a state directory that cannot be read: exit 1, one line naming the log", async (t) => {
  const file = join(await stateDir(t, BASIC), EVENT_LOG_FILE);
  const result = await runCli(["events", "--state-dir", file]);
  t.equal(result.exitCode, 1);
  t.equal(
    result.stderr,
    `Error: cannot read event log ${join(file, EVENT_LOG_FILE)}: a component of the path is not a directory (ENOTDIR)\n`,
  );
});

t.test(
  "events last seen before the retention are hidden: 72h by default, --retention, $PODRUN_EVENTS_RETENTION",
  async (t) => {
    const old = makeEvent({ pod: "web", name: "web.old", reason: "Old", first: ago(73 * 60) });
    const dir = await stateDir(t, [old, ...BASIC]);
    const run = async (args: string[], env: Record<string, string> = {}) => {
      const result = await runCli(["events", "--state-dir", dir, ...args], { env });
      t.equal(result.exitCode, 0, `${args.join(" ")} ${JSON.stringify(env)}`);
      return reasonsOf(result.stdout);
    };
    t.same(await run([]), ["Pulled", "BackOff", "Failed"], "73 hours old: hidden by the default 72h");
    t.same(await run(["--retention", "74h"]), ["Old", "Pulled", "BackOff", "Failed"]);
    t.same(await run(["--retention", "none"]), ["Old", "Pulled", "BackOff", "Failed"]);
    t.same(await run(["--retention", "0"]), ["Old", "Pulled", "BackOff", "Failed"]);
    t.same(await run([], { PODRUN_EVENTS_RETENTION: "45m" }), ["BackOff", "Failed"], "BackOff was last seen 20m ago");
    t.same(
      await run(["--retention", "4d"], { PODRUN_EVENTS_RETENTION: "45m" }),
      ["Old", "Pulled", "BackOff", "Failed"],
      "the option wins",
    );

    for (const [args, env, source] of [
      [["--retention", "3"], {}, "--retention"],
      [[], { PODRUN_EVENTS_RETENTION: "a week" }, "$PODRUN_EVENTS_RETENTION"],
    ] as const) {
      const bad = await runCli(["events", "--state-dir", dir, ...args], { env });
      t.equal(bad.exitCode, 2, source);
      t.match(bad.stderr, `invalid value `);
      t.match(bad.stderr, ` for ${source}: expected a duration such as 72h or 7d`);
    }
  },
);

t.test("a repeat seen within the retention counts what its line says, even if its first lines are older", async (t) => {
  const repeats = makeRepeats({
    pod: "web",
    name: "web.r",
    reason: "BackOff",
    message: "m",
    first: ago(100),
    times: 3,
    everyMs: 40 * MIN,
  });
  const result = await runCli(["events", "--json", "--state-dir", await stateDir(t, repeats), "--retention", "90m"]);
  const [event] = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as KubeEvent);
  t.same(
    [event!.count, event!.firstTimestamp],
    [3, repeats[0]!.firstTimestamp],
    "the API server keeps an updated event whole",
  );
});

t.test("a checkpoint file left by an older podrun (events.folded) is deleted, never read", async (t) => {
  const dir = await stateDir(t, BASIC);
  await writeFile(join(dir, "events.folded"), '{"version":1}\nnot rows at all\n');
  const result = await runCli(["events", "--state-dir", dir]);
  t.same(reasonsOf(result.stdout), ["Pulled", "BackOff", "Failed"]);
  t.notOk(existsSync(join(dir, "events.folded")));
});

// --watch: the CLI is started, lines are appended while it runs, and it is stopped with SIGINT.

function startWatch(
  t: Test,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): {
  process: ResultPromise;
  stdout: () => string;
  stderr: () => string;
  waitFor(what: () => boolean, label: string): Promise<void>;
} {
  const child = execa(process.execPath, [PODRUN_BIN, "events", "-w", ...args], {
    env: { NO_COLOR: "1", FORCE_COLOR: "0", ...env },
    reject: false,
    stdin: "ignore",
    timeout: 60_000,
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  t.teardown(() => void child.kill("SIGKILL"));
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    async waitFor(what, label) {
      for (const deadline = Date.now() + 20_000; !what();) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}; stdout: ${out}; stderr: ${err}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

t.test("--watch prints events appended after it started, and SIGINT ends it with exit 0", async (t) => {
  const dir = await stateDir(t, [PULLED]);
  const watch = startWatch(t, ["--state-dir", dir]);
  await watch.waitFor(() => watch.stdout().includes("Pulled"), "the listing");
  await appendFile(
    join(dir, EVENT_LOG_FILE),
    toLines([
      makeEvent({
        pod: "db",
        name: "db.9",
        type: "Warning",
        reason: "Unhealthy",
        message: "Readiness probe failed",
        first: Date.now(),
      }),
    ]),
  );
  await watch.waitFor(() => watch.stdout().includes("Unhealthy"), "the appended event");
  // The same event again (count 2) updates its row, printed anew.
  await appendFile(
    join(dir, EVENT_LOG_FILE),
    toLines([
      makeEvent({
        pod: "db",
        name: "db.9",
        type: "Warning",
        reason: "Unhealthy",
        message: "Readiness probe failed",
        first: Date.now(),
        count: 2,
      }),
    ]),
  );
  await watch.waitFor(() => /\(x2 over \d+s\)/.test(watch.stdout()), "the repeat");
  watch.process.kill("SIGINT");
  const result = await watch.process;
  t.equal(result.exitCode, 0);
  const lines = watch.stdout().trim().split("\n");
  t.equal(lines.length, 4, "header once, the listed row, then a row per change");
  t.match(lines[0], /^LAST SEEN {11}TYPE/);
  t.match(lines[2], /^\d+s {10,}Warning {3}Unhealthy {3}pod\/db {4}Readiness probe failed$/);
  t.match(lines[3], /^\d+s \(x2 over \d+s\)\s+Warning {3}Unhealthy {3}pod\/db {4}Readiness probe failed$/);
});

t.test("--watch on a missing log waits for it; --json prints each new event as JSON", async (t) => {
  const dir = join(await stateDir(t, ""), "later");
  const watch = startWatch(t, ["--json", "--state-dir", dir]);
  await watch.waitFor(() => watch.stderr().includes("No events found."), "the empty listing");
  await mkdir(dir);
  await appendFile(join(dir, EVENT_LOG_FILE), toLines([FAILED]));
  await watch.waitFor(() => watch.stdout().includes("\n"), "the event");
  watch.process.kill("SIGTERM");
  t.equal((await watch.process).exitCode, 0, "SIGTERM ends it normally too");
  t.same(JSON.parse(watch.stdout()), FAILED);
});

t.test("--watch follows the log across rotations (PODRUN_EVENT_LOG_MAX_BYTES)", async (t) => {
  const dir = await stateDir(t, [PULLED]);
  const watch = startWatch(t, ["--state-dir", dir, "--reason", "Pulling"]);
  await watch.waitFor(() => watch.stderr().includes("No events found."), "the listing");
  // Six events of ~700 bytes through the real writer, rotating every ~1500 bytes.
  const child = fileURLToPath(new URL("../events/fixtures/append-events.ts", import.meta.url));
  await promisify(execFile)(process.execPath, ["--import", "tsx", child, dir, "r", "6", "", "200"], {
    env: { ...process.env, PODRUN_EVENT_LOG_MAX_BYTES: "1500" },
  });
  await watch.waitFor(() => watch.stdout().trim().split("\n").length === 7, "six rows");
  t.ok(existsSync(join(dir, `${EVENT_LOG_FILE}.2`)), "the log did rotate, more than once");
  watch.process.kill("SIGINT");
  t.equal((await watch.process).exitCode, 0);
  const messages = watch
    .stdout()
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => line.split(/\s{3,}/)[4]!.split(" ")[0]);
  t.same(messages, ["0", "1", "2", "3", "4", "5"], "every event, once, in order");
});

t.test(
  "rotated files list as the one log they were: runs that go on across files, a torn line at the end of an old file",
  async (t) => {
    const events: KubeEvent[] = [];
    for (let run = 0; run < 40; run++) {
      const pod = `svc-${run % 7}`;
      events.push(makeEvent({ pod, uid: `${pod}-${run}`, name: `${pod}.${run}`, first: ago(200 - run * 4) }));
      events.push(
        ...makeRepeats({
          pod,
          uid: `${pod}-${run}`,
          name: `${pod}.${run}b`,
          reason: "BackOff",
          message: "Back-off pulling image",
          first: ago(199 - run * 4),
          times: 1 + (run % 5),
          everyMs: 10_000,
        }),
      );
    }
    const lines = toLines(events).split("\n").filter(Boolean);
    const third = Math.floor(lines.length / 3);
    const rotated = await stateDir(t, "");
    await writeFile(
      join(rotated, `${EVENT_LOG_FILE}.2`),
      `${lines.slice(0, third).join("\n")}\n${lines[third]!.slice(0, 40)}`,
    );
    await writeFile(join(rotated, `${EVENT_LOG_FILE}.1`), `${lines.slice(third, 2 * third).join("\n")}\n`);
    await writeFile(
      join(rotated, EVENT_LOG_FILE),
      `${lines.slice(2 * third).join("\n")}\n{"apiVersion":"v1","kind":"Ev`,
    );
    const whole = await stateDir(t, `${lines.join("\n")}\n`);
    for (const extra of [[], ["--reason", "BackOff"], ["--pod", "svc-3"]]) {
      const split = await runCli(["events", "--json", "--state-dir", rotated, ...extra]);
      const one = await runCli(["events", "--json", "--state-dir", whole, ...extra]);
      t.equal(split.exitCode, 0, split.stderr);
      t.ok(one.stdout.trim().split("\n").length >= 2, "rows listed");
      t.equal(split.stdout, one.stdout, `the same rows and counts ${extra.join(" ")}`);
    }
  },
);
