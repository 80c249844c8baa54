import t, { type Test } from "tap";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearBackoff, listBackoff } from "../../lib/commands/backoff.js";
import { ExitError, UsageError } from "../../lib/errors.js";
import { BACKOFF_FILE } from "../../lib/state/backoff-store.js";
import { readBackoffFile } from "../harness/state-files.js";

// `podrun backoff` and `podrun backoff clear` on real files in a temp state directory, with a
// fixed clock. Exit codes and streams through the built CLI: backoff.cli.test.ts.

const NOW = Date.parse("2025-03-01T12:00:00.000Z");
const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();

async function stateDir(t: Test, entries?: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-backoff-cmd-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  if (entries) await writeFile(join(dir, BACKOFF_FILE), JSON.stringify({ version: 1, entries }));
  return dir;
}

function capture() {
  const stream = () => {
    const chunks: string[] = [];
    return { chunks, write: (chunk: string) => (chunks.push(chunk), true) };
  };
  const stdout = stream();
  const stderr = stream();
  const streams = {
    stdout: stdout as unknown as NodeJS.WritableStream,
    stderr: stderr as unknown as NodeJS.WritableStream,
  };
  return { streams, out: () => stdout.chunks.join(""), err: () => stderr.chunks.join("") };
}

const ENTRIES = {
  "default/web_127.0.0.1:5100/podrun-test/missing:1": {
    backoffMs: 20_000,
    lastUpdate: at(25),
    lastError: "ErrImagePull: manifest unknown\nmore",
  },
  "ci/api_busybox": { backoffMs: 300_000, lastUpdate: at(50) },
  "ci/db_postgres": { backoffMs: 10_000, lastUpdate: at(250), lastError: "RegistryUnavailable: connection refused" },
  "ci/old_busybox": { backoffMs: 300_000, lastUpdate: at(601) },
};

t.test("list: a table of the live entries by key, ages as kubectl prints them", async (t) => {
  const dir = await stateDir(t, ENTRIES);
  const io = capture();
  await listBackoff({ json: false, stateDir: dir, now: () => NOW, env: { NO_COLOR: "1" }, ...io.streams });
  t.equal(
    io.out(),
    [
      "KEY                                                BACKOFF   NEXT RETRY IN   LAST FAILURE   LAST ERROR",
      "ci/api_busybox                                     5m        4m10s           50s",
      "ci/db_postgres                                     10s       now             4m10s          RegistryUnavailable: connection refused",
      "default/web_127.0.0.1:5100/podrun-test/missing:1   20s       now             25s            ErrImagePull: manifest unknown...",
      "",
    ].join("\n"),
  );
  t.equal(io.err(), "");
  const saved = await readBackoffFile(dir);
  t.notOk("ci/old_busybox" in saved.entries, "the expired entry (older than 2 × 5m) was collected under the lock");
});

t.test("list: the next retry rounds up, never showing 0s while in back-off", async (t) => {
  const dir = await stateDir(t, { k: { backoffMs: 10_000, lastUpdate: at(9.5) } });
  const io = capture();
  await listBackoff({ json: false, stateDir: dir, now: () => NOW, ...io.streams });
  t.same(io.out().split("\n")[1]!.split(/ {3,}/), ["k", "10s", "1s", "9s"]);
});

t.test("list: a registry's control characters reach the terminal escaped, not as such", async (t) => {
  const dir = await stateDir(t, {
    k: { backoffMs: 10_000, lastUpdate: at(1), lastError: "ErrImagePull: \u001b]0;owned\u0007\u001b[2J" },
  });
  const io = capture();
  await listBackoff({ json: false, stateDir: dir, now: () => NOW, ...io.streams });
  t.match(io.out(), /ErrImagePull: \^\[\]0;owned\^G\^\[\[2J\n$/);
  t.notOk(io.out().includes("\u001b"), "no escape character");
});

t.test("list --json: the entries as an array, with the full error and RFC 3339 times", async (t) => {
  const dir = await stateDir(t, ENTRIES);
  const io = capture();
  await listBackoff({ json: true, stateDir: dir, now: () => NOW, ...io.streams });
  t.same(JSON.parse(io.out()), [
    { key: "ci/api_busybox", backoffMs: 300_000, lastUpdate: at(50), nextRetryAt: at(50 - 300), lastError: null },
    {
      key: "ci/db_postgres",
      backoffMs: 10_000,
      lastUpdate: at(250),
      nextRetryAt: at(240),
      lastError: "RegistryUnavailable: connection refused",
    },
    {
      key: "default/web_127.0.0.1:5100/podrun-test/missing:1",
      backoffMs: 20_000,
      lastUpdate: at(25),
      nextRetryAt: at(5),
      lastError: "ErrImagePull: manifest unknown\nmore",
    },
  ]);
});

t.test("list: no entries says so on stderr; --json prints []; a missing state dir is not created", async (t) => {
  const dir = join(await stateDir(t), "not-yet");
  const io = capture();
  await listBackoff({ json: false, stateDir: dir, ...io.streams });
  t.equal(io.out(), "");
  t.equal(io.err(), "No back-off entries.\n");
  await listBackoff({ json: true, stateDir: dir, ...io.streams });
  t.equal(io.out(), "[]\n");
  t.same(await readdir(join(dir, "..")), [], "looking created nothing");
});

t.test("list: the state dir comes from PODRUN_STATE_DIR when --state-dir is not given", async (t) => {
  const dir = await stateDir(t, { "a/b_c": { backoffMs: 10_000, lastUpdate: at(1) } });
  const io = capture();
  await listBackoff({ json: true, env: { PODRUN_STATE_DIR: dir }, now: () => NOW, ...io.streams });
  t.same(
    (JSON.parse(io.out()) as { key: string }[]).map((e) => e.key),
    ["a/b_c"],
  );
});

t.test("list: a corrupt file gives one Warning naming where it went, and an empty list", async (t) => {
  const dir = await stateDir(t);
  await writeFile(join(dir, BACKOFF_FILE), '{"version": 1, "entries": {"a": ');
  const io = capture();
  await listBackoff({ json: false, stateDir: dir, env: { NO_COLOR: "1" }, ...io.streams });
  const aside = (await readdir(dir)).filter((f) => f.startsWith(`${BACKOFF_FILE}.corrupt-`));
  t.equal(aside.length, 1);
  t.equal(
    io.err(),
    `Warning: state file ${join(dir, BACKOFF_FILE)} is not valid JSON (${jsonError('{"version": 1, "entries": {"a": ')}): moved it to ${join(dir, aside[0]!)}; pull back-off starts empty\nNo back-off entries.\n`,
  );
});

t.test("clear KEY: removes exactly those entries and says so", async (t) => {
  const dir = await stateDir(t, ENTRIES);
  const io = capture();
  await clearBackoff({
    keys: ["ci/api_busybox", "ci/db_postgres", "ci/api_busybox"],
    all: false,
    stateDir: dir,
    now: () => NOW,
    ...io.streams,
  });
  t.equal(io.out(), "cleared ci/api_busybox\ncleared ci/db_postgres\n");
  t.equal(io.err(), "");
  const saved = await readBackoffFile(dir);
  t.same(Object.keys(saved.entries).sort(), ["ci/old_busybox", "default/web_127.0.0.1:5100/podrun-test/missing:1"]);
});

t.test("clear KEY: an unknown key is named, the known ones are still cleared, exit 1", async (t) => {
  const dir = await stateDir(t, ENTRIES);
  const io = capture();
  const error = await clearBackoff({
    keys: ["ci/typo", "ci/api_busybox"],
    all: false,
    stateDir: dir,
    ...io.streams,
  }).catch((e: unknown) => e);
  t.ok(error instanceof ExitError && error.code === 1, "exit 1");
  t.equal(io.out(), "cleared ci/api_busybox\n");
  t.equal(io.err(), "Error: no back-off entry ci/typo (`podrun backoff` lists them)\n");
  const saved = await readBackoffFile(dir);
  t.notOk("ci/api_busybox" in saved.entries);
});

t.test("clear --all: empties the file, naming the live entries", async (t) => {
  const dir = await stateDir(t, ENTRIES);
  const io = capture();
  await clearBackoff({ keys: [], all: true, stateDir: dir, now: () => NOW, ...io.streams });
  t.equal(
    io.out(),
    "cleared ci/api_busybox\ncleared ci/db_postgres\ncleared default/web_127.0.0.1:5100/podrun-test/missing:1\n",
  );
  t.same(JSON.parse(await readFile(join(dir, BACKOFF_FILE), "utf8")), { version: 1, entries: {} });
  t.same(await readdir(dir), [BACKOFF_FILE], "no lock or temp file left");
  const again = capture();
  await clearBackoff({ keys: [], all: true, stateDir: dir, ...again.streams });
  t.equal(again.out(), "");
  t.equal(again.err(), "No back-off entries.\n");
});

t.test("clear: neither keys nor --all, or both, is a usage error that touches nothing", async (t) => {
  const dir = await stateDir(t, ENTRIES);
  const before = await readFile(join(dir, BACKOFF_FILE), "utf8");
  await t.rejects(
    clearBackoff({ keys: [], all: false, stateDir: dir }),
    new UsageError("give the key of an entry to clear (as `podrun backoff` lists it), or --all"),
  );
  await t.rejects(
    clearBackoff({ keys: ["ci/api_busybox"], all: true, stateDir: dir }),
    new UsageError("give either keys or --all, not both"),
  );
  t.equal(await readFile(join(dir, BACKOFF_FILE), "utf8"), before);
});

t.test("clear in a state dir that does not exist: --all is a no-op, a key is not found", async (t) => {
  const dir = join(await stateDir(t), "none");
  const io = capture();
  await clearBackoff({ keys: [], all: true, stateDir: dir, ...io.streams });
  t.equal(io.err(), "No back-off entries.\n");
  await t.rejects(clearBackoff({ keys: ["a/b_c"], all: false, stateDir: dir, ...io.streams }), ExitError);
  t.same(await readdir(join(dir, "..")), []);
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("valid JSON");
}
