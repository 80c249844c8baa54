import t from "tap";
import { execFile } from "node:child_process";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Chalk } from "chalk";
import { createConsoleSink, formatEventLine, formatObjectLabel } from "../../lib/output/console-sink.js";
import { createRecorder } from "../../lib/events/recorder.js";
import { toInvolvedObject, type KubeEvent } from "../../lib/events/types.js";
import { stripColor } from "../harness/ansi.js";

// Lines are checked in UTC so HH:MM:SS is the same everywhere.
process.env.TZ = "UTC";

const POD = { name: "web", namespace: "default", uid: "u" };
const AT = Date.parse("2025-03-01T12:03:04Z");

function recordInto(sink: { write(e: KubeEvent): void }) {
  return createRecorder({ sinks: [sink], clock: () => AT, host: "h" });
}

class Capture extends Writable {
  text = "";
  isTTY?: boolean;
  constructor(isTTY?: boolean) {
    super();
    if (isTTY)
      Object.assign(this, {
        isTTY: true,
        columns: 80,
        cursorTo: () => true,
        moveCursor: () => true,
        clearLine: () => true,
      });
  }
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

t.test("one aligned line per event: time, type, reason, object, message", async (t) => {
  const out = new Capture();
  const recorder = recordInto(
    createConsoleSink({
      stream: out,
      chalk: new Chalk({ level: 0 }),
      objects: ["pod/web", "pod/web[app]", "pod/web[sidecar]"],
    }),
  );
  recorder.event(
    toInvolvedObject(POD),
    "Normal",
    "Pulled",
    'Container image "registry.k8s.io/pause:3.10" already present on machine',
  );
  recorder.event(toInvolvedObject(POD, { name: "app" }), "Normal", "Pulling", 'Pulling image "busybox"');
  recorder.event(
    toInvolvedObject(POD, { name: "sidecar" }),
    "Warning",
    "Failed",
    'Failed to pull image "nope": not found',
  );
  recorder.event(toInvolvedObject(POD, { name: "sidecar" }), "Normal", "BackOff", 'Back-off pulling image "nope"');
  recorder.event(toInvolvedObject(POD, { name: "sidecar" }), "Normal", "BackOff", 'Back-off pulling image "nope"');
  t.equal(
    out.text,
    [
      '12:03:04  Normal   Pulled     pod/web           Container image "registry.k8s.io/pause:3.10" already present on machine',
      '12:03:04  Normal   Pulling    pod/web[app]      Pulling image "busybox"',
      '12:03:04  Warning  Failed     pod/web[sidecar]  Failed to pull image "nope": not found',
      '12:03:04  Normal   BackOff    pod/web[sidecar]  Back-off pulling image "nope"',
      '12:03:04  Normal   BackOff    pod/web[sidecar]  Back-off pulling image "nope" (x2)',
      "",
    ].join("\n"),
  );
});

t.test("columns only widen, so later lines stay aligned with longer ones", async (t) => {
  const widths = { reason: 9, object: 0 };
  const chalk = new Chalk({ level: 0 });
  const event = (reason: string, container?: string) =>
    recordInto({ write() {} }).event(
      toInvolvedObject(POD, container ? { name: container } : undefined),
      "Warning",
      reason,
      "m",
    );
  t.equal(
    formatEventLine(event("FailedCreatePodSandBox"), { chalk, widths }),
    "12:03:04  Warning  FailedCreatePodSandBox  pod/web  m",
  );
  t.equal(
    formatEventLine(event("Failed", "a"), { chalk, widths }),
    "12:03:04  Warning  Failed                  pod/web[a]  m",
  );
  t.equal(
    formatEventLine(event("Failed"), { chalk, widths }),
    "12:03:04  Warning  Failed                  pod/web     m",
  );
});

t.test("colour: Normal green, Warning yellow, time dim; none at level 0", async (t) => {
  const widths = { reason: 9, object: 0 };
  const normal = recordInto({ write() {} }).event(toInvolvedObject(POD), "Normal", "Pulled", "m");
  const warning = recordInto({ write() {} }).event(toInvolvedObject(POD), "Warning", "Failed", "m");
  const chalk = new Chalk({ level: 1 });
  t.equal(
    formatEventLine(normal, { chalk, widths }),
    `${chalk.dim("12:03:04")}  ${chalk.green("Normal ")}  Pulled     pod/web  m`,
  );
  t.equal(
    formatEventLine(warning, { chalk, widths }),
    `${chalk.dim("12:03:04")}  ${chalk.yellow("Warning")}  Failed     pod/web  m`,
  );
  t.notMatch(formatEventLine(warning, { chalk: new Chalk({ level: 0 }), widths }), "\u001b");
});

t.test("in a real process: NO_COLOR turns colour off, FORCE_COLOR on (and wins over NO_COLOR)", async (t) => {
  const script = fileURLToPath(new URL("../events/fixtures/print-event.ts", import.meta.url));
  const run = async (extra: NodeJS.ProcessEnv) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, TZ: "UTC", ...extra };
    return (await promisify(execFile)(process.execPath, ["--import", "tsx", script], { env })).stdout;
  };
  const plain =
    '12:03:04  Normal   Pulling    pod/web[app]  Pulling image "busybox"\n12:03:04  Warning  Failed     pod/web[app]  Failed to pull image "busybox": not found\n';
  t.equal(await run({}), plain, "a pipe: no colour");
  t.equal(await run({ NO_COLOR: "1" }), plain, "NO_COLOR");
  const forced = await run({ FORCE_COLOR: "1" });
  t.match(forced, "\u001b[32mNormal \u001b[39m", "FORCE_COLOR: green Normal");
  t.match(forced, "\u001b[33mWarning\u001b[39m", "FORCE_COLOR: yellow Warning");
  t.equal(stripColor(forced), plain, "same text under the colour");
  t.match(await run({ FORCE_COLOR: "1", NO_COLOR: "1" }), "\u001b[", "an explicit FORCE_COLOR wins");
  t.equal(await run({ FORCE_COLOR: "0" }), plain, "FORCE_COLOR=0");
});

t.test("object labels: pod/NAME, with [container] for container events", async (t) => {
  t.equal(formatObjectLabel({ involvedObject: toInvolvedObject(POD) }), "pod/web");
  t.equal(
    formatObjectLabel({ involvedObject: toInvolvedObject(POD, { name: "setup", init: true }) }),
    "pod/web[setup]",
  );
  const proxyImage = {
    apiVersion: "v1" as const,
    kind: "Service" as const,
    name: "api",
    namespace: "default",
    uid: "",
  };
  t.equal(formatObjectLabel({ involvedObject: proxyImage }), "service/api", "a Service's proxy image pull");
});

t.test("progress: nothing at all unless the stream is an interactive terminal", async (t) => {
  for (const [label, isTTY, env] of [
    ["a pipe", false, {}],
    ["CI set", true, { CI: "true" }],
    ["CI set but empty", true, { CI: "" }],
    ["TERM=dumb", true, { TERM: "dumb" }],
  ] as const) {
    const out = new Capture(isTTY);
    const sink = createConsoleSink({ stream: out, env, chalk: new Chalk({ level: 0 }) });
    const progress = sink.startProgress('Pulling image "busybox"');
    recordInto(sink).event(toInvolvedObject(POD), "Normal", "Pulled", "m");
    progress.stop();
    progress.stop();
    t.equal(out.text, "12:03:04  Normal   Pulled     pod/web  m\n", label);
  }
});

t.test("progress on a terminal: a spinner with the text, cleared when the last one stops", async (t) => {
  const out = new Capture(true);
  const sink = createConsoleSink({ stream: out, env: { TERM: "xterm" }, chalk: new Chalk({ level: 0 }) });
  const a = sink.startProgress('Pulling image "a"');
  const b = sink.startProgress('Pulling image "b"');
  // ora is loaded on first use, on a terminal only: the spinner appears once it has loaded, which
  // takes tens of milliseconds on a quiet machine and seconds under the suite's load.
  for (let waited = 0; !/Pulling image "a", Pulling image "b"/.test(out.text) && waited < 10_000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  t.match(out.text, /Pulling image "a", Pulling image "b"/);
  a.stop();
  await new Promise((resolve) => setTimeout(resolve, 150));
  t.match(out.text.slice(-200), /Pulling image "b"/);
  b.stop();
  const after = out.text.length;
  await new Promise((resolve) => setTimeout(resolve, 150));
  t.equal(out.text.length, after, "no more frames once stopped");
});
