import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { removeManagedContainers } from "../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, uniqueName, testPodHeader } from "../harness/engine-pod.js";

// tty and stdin end to end: whether the container's standard input is a terminal, and whether it
// stays open, seen by the container's own processes on the real engines.

const REPORT = "if [ -t 0 ]; then echo stdin=terminal; else echo stdin=other; fi; tty; echo done; exec sleep 600";

const container = (name: string, fields: string, command: string[]) => `    - name: ${name}
      image: ${BUSYBOX}
      command: ${JSON.stringify(command)}
${fields}`;

for (const runtime of ["docker", "podman"] as const) {
  t.test(
    `${runtime}: tty gives a terminal; stdin keeps standard input open, without it cat reads end of file`,
    async (t) => {
      const env = await setupEnginePod(t, runtime);
      if (!env) return;
      const name = uniqueName("term");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }));
      const result = await env.up(
        name,
        `${testPodHeader(name)}  containers:
${container("tty", "      tty: true\n", ["sh", "-c", REPORT])}
${container("plain", "", ["sh", "-c", REPORT])}
${container("open", "      stdin: true\n      stdinOnce: true\n", ["cat"])}
${container("closed", "", ["cat"])}`,
      );
      t.equal(result.exitCode, 0, result.stderr);
      t.notMatch(result.stderr, /stdin|tty/, "no warning for stdin, stdinOnce or tty");
      const tty = await env.reportOf(name, "tty");
      t.match(tty, /^stdin=terminal\r?$/m, "tty: true: standard input is a terminal");
      t.match(tty, /^\/dev\/pts\/\d+\r?$/m, "`tty` names it");
      const plain = await env.reportOf(name, "plain");
      t.match(plain, /^stdin=other$/m, "without tty: no terminal");
      t.match(plain, /^not a tty$/m);
      const statusOf = async (container: string) =>
        (
          await runCommand(runtime, ["inspect", "-f", "{{.State.Status}}", `default_${name}_${container}`])
        ).stdout.trim();
      // `closed` reads end of file at once; `open` would have too by the time `closed` is seen to exit.
      let closed = "";
      for (let i = 0; i < 50 && closed !== "exited"; i++) {
        closed = await statusOf("closed");
        if (closed !== "exited") await new Promise((resolve) => setTimeout(resolve, 200));
      }
      t.equal(closed, "exited", "without stdin, cat reads end of file and exits");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      t.equal(await statusOf("open"), "running", "with stdin, cat waits for input");
    },
  );
}
