import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { containerYaml, setup, startCli, unique } from "./ps-logs-fixture.js";

// `podrun logs` end to end, against real docker and podman: what the containers printed, with
// each flag, kubectl's errors, and --follow streaming as the lines come.

// Each case has its own state directory and uniquely named pods: two run at once.
t.jobs = 2;
for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: logs prints what the containers printed: -c, --tail, --timestamps, --all-containers --prefix, Ctrl-C on -f`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const { namespace } = env;
      const web = unique("web");
      await env.up(
        web,
        `  initContainers:\n${containerYaml("init", "echo init-line")}  containers:\n${containerYaml("app", "echo one; echo two; echo three; sleep 0.5; echo err-line >&2; exec sleep 600")}${containerYaml("sidecar", "echo side-line; exec sleep 600")}`,
      );

      const app = await env.logsUntil("err-line", web, "-n", namespace, "-c", "app");
      t.equal(app.exitCode, 0, app.stderr);
      t.equal(
        app.stdout,
        "one\ntwo\nthree\nerr-line\n",
        "stdout and stderr of the container, in order, on standard output",
      );
      t.equal(app.stderr, "");

      const tail = await env.podrun("logs", web, "-n", namespace, "-c", "app", "--tail", "2");
      t.equal(tail.stdout, "three\nerr-line\n");

      const stamped = await env.podrun("logs", web, "-n", namespace, "-c", "app", "--timestamps");
      const stampedLines = stamped.stdout.trimEnd().split("\n");
      t.same(
        stampedLines.map((line) => line.replace(/^\S+ /, "")),
        ["one", "two", "three", "err-line"],
      );
      for (const line of stampedLines)
        t.match(line, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d) /, "RFC 3339 stamp first");

      const since = await env.podrun("logs", web, "-n", namespace, "-c", "app", "--since", "1h");
      t.equal(since.stdout, "one\ntwo\nthree\nerr-line\n", "--since 1h: every line of this minute");

      const init = await env.podrun("logs", web, "-n", namespace, "-c", "init");
      t.equal(init.stdout, "init-line\n", "-c takes an init container too");

      // No -c on a pod of two: kubectl's default, the first container of the spec, and its note.
      const choose = await env.podrun("logs", web, "-n", namespace);
      t.equal(choose.exitCode, 0, choose.stderr);
      t.equal(choose.stderr, 'Defaulted container "app" out of: app, sidecar, init (init)\n');
      t.equal(choose.stdout, "one\ntwo\nthree\nerr-line\n");

      const all = await env.podrun("logs", web, "-n", namespace, "--all-containers", "--prefix");
      t.equal(all.exitCode, 0, all.stderr);
      const allLines = all.stdout.trimEnd().split("\n");
      t.equal(allLines[0], `[pod/${web}/init] init-line`, "init containers first");
      t.same(
        allLines.filter((line) => line.startsWith(`[pod/${web}/app] `)),
        ["one", "two", "three", "err-line"].map((text) => `[pod/${web}/app] ${text}`),
      );
      t.same(
        allLines.filter((line) => line.startsWith(`[pod/${web}/sidecar] `)),
        [`[pod/${web}/sidecar] side-line`],
      );
      t.equal(allLines.length, 6);

      // The sidecar never exits: only Ctrl-C ends following it, and that is a normal end (exit 0).
      const follow = startCli(["logs", web, "-n", namespace, "-c", "sidecar", "-f", "--runtime", runtime], env.env);
      await follow.waitFor("side-line");
      t.equal(follow.output.text, "side-line\n");
      follow.child.kill("SIGINT");
      const interrupted = await follow.child;
      t.equal(interrupted.exitCode, 0, "Ctrl-C ends a follow with exit 0");
      t.equal(String(interrupted.stderr), "");

      const missing = await env.podrun("logs", "no-such-pod", "-n", namespace);
      t.equal(missing.exitCode, 1);
      t.equal(missing.stderr, 'Error from server (NotFound): pods "no-such-pod" not found\n');
      const badContainer = await env.podrun("logs", web, "-n", namespace, "-c", "nope");
      t.equal(badContainer.exitCode, 2);
      t.equal(badContainer.stderr, `error: container nope is not valid for pod ${web}\n`);
    },
  );

  t.test(
    `${runtime}: logs -f streams a line printed after it started, and ends when the container exits`,
    { buffered: true },
    async (t) => {
      const env = await setup(t, runtime);
      if (!env) return;
      const { namespace } = env;
      const late = unique("late");
      // The container prints "late" only when told to (a file made through exec): after `logs -f` is
      // seen streaming, whatever the machine's speed.
      await env.up(
        late,
        `  containers:\n${containerYaml("app", "echo early; while [ ! -f /tmp/go ]; do sleep 0.1; done; echo late; sleep 0.5")}`,
      );
      const follow = startCli(["logs", late, "-n", namespace, "-f", "--runtime", runtime], env.env);
      await follow.waitFor("early");
      t.equal(follow.output.text, "early\n", "the first line shows while the command still runs");
      t.equal(follow.child.exitCode, null, "still following");

      const [id] = await env.idsOf(late, "app");
      await runCommand(runtime, ["exec", id!, "touch", "/tmp/go"]);
      await follow.waitFor("late");
      t.equal(follow.output.text, "early\nlate\n", "the line printed after the command started arrives");

      const result = await follow.child;
      t.equal(result.exitCode, 0, String(result.stderr));
      t.equal(follow.output.text, "early\nlate\n", "nothing more");
      const ps = await env.podrun("ps", "-n", namespace);
      t.match(
        ps.stdout,
        new RegExp(`\\n${late}\\s+0/1\\s+Completed\\s`),
        "the pod is Completed once its container exited",
      );
    },
  );
}
