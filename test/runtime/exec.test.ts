import t from "tap";
import { CommandError, formatCommand, runCommand } from "../../lib/runtime/exec.js";

// Each child is `node -e <script>`: real process spawning, with no dependency on a shell.
const node = (script: string, ...args: string[]) => [process.execPath, ["-e", script, ...args]] as const;

t.test("a successful command resolves with its output, final newline stripped", async (t) => {
  const [bin, args] = node("console.log('out'); console.error('err')");
  const result = await runCommand(bin, args);
  t.equal(result.exitCode, 0);
  t.equal(result.stdout, "out");
  t.equal(result.stderr, "err");
  t.match(result.command, /node -e /);
  t.type(result.durationMs, "number");
});

t.test("arguments are passed as they are, never through a shell", async (t) => {
  const tricky = ["$HOME", "a b", "'quoted'", "; rm -rf /", "*"];
  const [bin, args] = node("console.log(JSON.stringify(process.argv.slice(1)))", ...tricky);
  const result = await runCommand(bin, args);
  t.same(JSON.parse(result.stdout), tricky);
});

t.test("a non-zero exit throws CommandError with exit code, stderr and a one-line shortMessage", async (t) => {
  const [bin, args] = node("console.error('Error: no such image: x'); console.log('partial'); process.exit(125)");
  const error = await runCommand(bin, args).catch((e: unknown) => e);
  t.ok(error instanceof CommandError, "CommandError");
  const e = error as CommandError;
  t.equal(e.name, "CommandError");
  t.equal(e.exitCode, 125);
  t.equal(e.stderr, "Error: no such image: x");
  t.equal(e.stdout, "partial");
  t.equal(e.binary, process.execPath);
  t.same(e.args, args);
  t.equal(e.notInstalled, false);
  t.equal(e.timedOut, false);
  t.match(e.shortMessage, /^Command failed with exit code 125: \S*node -e '/);
  t.notMatch(e.shortMessage, /\n/);
  t.equal(e.message, `${e.shortMessage}\nError: no such image: x`, "message adds stderr");
  t.equal(e.cause, undefined, "an exit code needs no other cause");
});

t.test("reject: false resolves with the non-zero exit code", async (t) => {
  const [bin, args] = node("console.error('nope'); process.exit(3)");
  const result = await runCommand(bin, args, { reject: false });
  t.equal(result.exitCode, 3);
  t.equal(result.stderr, "nope");
});

t.test("a missing binary is reported as not installed, even with reject: false", async (t) => {
  const error = await runCommand("podrun-no-such-binary", ["version"], { reject: false }).catch((e: unknown) => e);
  t.ok(error instanceof CommandError);
  const e = error as CommandError;
  t.equal(e.notInstalled, true);
  t.equal(e.exitCode, undefined);
  t.equal(e.shortMessage, "podrun-no-such-binary: not installed (not found on PATH)");
  t.equal(e.message, e.shortMessage);
});

t.test("input reaches the child on stdin; without input, stdin is closed", async (t) => {
  const [bin, args] = node(
    "let s=''; process.stdin.on('data', d => s += d).on('end', () => console.log(s.length + ':' + s))",
  );
  t.equal((await runCommand(bin, args, { input: "s3cret\nline2" })).stdout, "12:s3cret\nline2");
  t.equal((await runCommand(bin, args)).stdout, "0:", "no input: the child reads end of file at once");
});

t.test("env is added to the inherited environment", async (t) => {
  const [bin, args] = node("console.log(process.env.PODRUN_TEST_VAR + ' ' + (process.env.PATH ? 'path' : 'no-path'))");
  t.equal((await runCommand(bin, args, { env: { PODRUN_TEST_VAR: "set" } })).stdout, "set path");
});

t.test("a command running past timeoutMs is killed and reported as timed out", async (t) => {
  const [bin, args] = node("setTimeout(() => {}, 30000)");
  const started = Date.now();
  const error = await runCommand(bin, args, { timeoutMs: 300, reject: false }).catch((e: unknown) => e);
  t.ok(Date.now() - started < 10_000, "did not wait for the child");
  t.ok(error instanceof CommandError);
  const e = error as CommandError;
  t.equal(e.timedOut, true);
  t.equal(e.exitCode, undefined);
  t.match(e.shortMessage, /^Command timed out after 300 milliseconds: /);
});

t.test("an aborted signal cancels the command", async (t) => {
  const [bin, args] = node("setTimeout(() => {}, 30000)");
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const e = (await runCommand(bin, args, { signal: controller.signal }).catch((e: unknown) => e)) as CommandError;
  t.equal(e.canceled, true);
  t.match(e.shortMessage, /^Command was canceled: /);
});

t.test("a child killed by a signal says so", async (t) => {
  const [bin, args] = node("process.kill(process.pid, 'SIGKILL')");
  const e = (await runCommand(bin, args, { reject: false }).catch((e: unknown) => e)) as CommandError;
  t.ok(e instanceof CommandError);
  t.match(e.shortMessage, /^Command was killed with SIGKILL: /);
});

t.test("PODRUN_DEBUG=1 prints the command to stderr, never the input", async (t) => {
  const writes: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => (writes.push(String(chunk)), true);
  process.env["PODRUN_DEBUG"] = "1";
  t.teardown(() => {
    process.stderr.write = write;
    delete process.env["PODRUN_DEBUG"];
  });
  const [bin, args] = node("process.stdin.resume()", "--", "--password-stdin");
  await runCommand(bin, args, { input: "hunter2" });
  process.stderr.write = write;
  t.equal(writes.length, 1);
  t.match(writes[0], /^podrun: exec \S*node -e 'process\.stdin\.resume\(\)' -- --password-stdin\n$/);
  t.notMatch(writes.join(""), /hunter2/);
});

t.test("formatCommand quotes arguments and shortens long ones and long lists", async (t) => {
  t.equal(
    formatCommand("podman", ["create", "--name", "x", "--label", "a=b c"]),
    "podman create --name x --label 'a=b c'",
  );
  t.equal(formatCommand("docker", ["run", ""]), "docker run ''");
  const long = "x".repeat(200);
  t.equal(formatCommand("docker", [long]), `docker ${"x".repeat(79)}…`);
  const many = Array.from({ length: 100 }, (_, i) => `--label=k${i}=v`);
  const shown = formatCommand("docker", ["create", ...many]);
  t.ok(shown.length <= 242, `at most ~240 characters (${shown.length})`);
  t.match(shown, /^docker create --label=k0=v .* …$/);
});
