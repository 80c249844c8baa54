import t, { type Test } from "tap";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BACKOFF_FILE } from "../../lib/state/backoff-store.js";
import { runCli } from "../harness/cli.js";

// `podrun backoff` and `podrun backoff clear` through the built CLI (npm run build first): exit
// codes and streams. What they print and change: backoff.test.ts.

async function stateDir(t: Test, entries?: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-backoff-cmd-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  if (entries) await writeFile(join(dir, BACKOFF_FILE), JSON.stringify({ version: 1, entries }));
  return dir;
}

t.test("CLI: exit codes and streams of backoff and backoff clear", async (t) => {
  const dir = await stateDir(t, {
    "default/web_busybox:1.36": {
      backoffMs: 10_000,
      lastUpdate: new Date().toISOString(),
      lastError: "ErrImagePull: not found",
    },
  });
  const env = { PODRUN_STATE_DIR: dir };
  const list = await runCli(["backoff"], { env });
  t.equal(list.exitCode, 0, list.stderr);
  t.match(
    list.stdout,
    /^KEY +BACKOFF +NEXT RETRY IN +LAST FAILURE +LAST ERROR\ndefault\/web_busybox:1\.36 +10s +(10|9)s +[01]s +ErrImagePull: not found\n$/,
  );

  const neither = await runCli(["backoff", "clear"], { env });
  t.same(
    [neither.exitCode, neither.stdout, neither.stderr],
    [2, "", "error: give the key of an entry to clear (as `podrun backoff` lists it), or --all\n"],
  );
  const both = await runCli(["backoff", "clear", "--all", "x"], { env });
  t.equal(both.exitCode, 2);

  const unknown = await runCli(["backoff", "clear", "default/nope"], { env });
  t.same(
    [unknown.exitCode, unknown.stdout, unknown.stderr],
    [1, "", "Error: no back-off entry default/nope (`podrun backoff` lists them)\n"],
  );

  // --state-dir after `clear` as well as before it.
  const cleared = await runCli(["backoff", "clear", "--state-dir", dir, "default/web_busybox:1.36"]);
  t.same([cleared.exitCode, cleared.stdout, cleared.stderr], [0, "cleared default/web_busybox:1.36\n", ""]);
  const empty = await runCli(["backoff", "--state-dir", dir, "--json"]);
  t.same([empty.exitCode, empty.stdout], [0, "[]\n"]);
  const none = await runCli(["backoff", "--state-dir", dir]);
  t.same([none.exitCode, none.stdout, none.stderr], [0, "", "No back-off entries.\n"]);
});
