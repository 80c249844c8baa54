import { Writable } from "node:stream";
import { Chalk } from "chalk";
import t from "tap";
import {
  createLiveStatus,
  redrawSequence,
  renderStatusFrame,
  statusOfEvent,
  type StatusRow,
} from "../../lib/output/live-status.js";

// The live status block as pure frames and cursor sequences, and the renderer over a captured
// stream. No terminal is needed: what is checked is the text a terminal would receive.

const plain = new Chalk({ level: 0 });
const ESC = "\u001b[";

const rows: StatusRow[] = [
  { label: "pod/web[app]", text: "Waiting for readiness (2/3)", tone: "active" },
  { label: "pod/web[sidecar]", text: "Ready", tone: "done" },
  { label: "pod/web[db]", text: "Failed: exited with code 1", tone: "failed" },
  { label: "pod/web[cache]", text: "Waiting", tone: "pending" },
];

t.test("a frame: symbol, aligned label, state; the spinner turns with the frame number", async (t) => {
  t.same(renderStatusFrame(rows, { frame: 0, chalk: plain, columns: 80 }), [
    "⠋ pod/web[app]      Waiting for readiness (2/3)",
    "✔ pod/web[sidecar]  Ready",
    "✖ pod/web[db]       Failed: exited with code 1",
    "· pod/web[cache]    Waiting",
  ]);
  t.equal(
    renderStatusFrame(rows, { frame: 2, chalk: plain, columns: 80 })[0],
    "⠹ pod/web[app]      Waiting for readiness (2/3)",
  );
  t.equal(
    renderStatusFrame(rows, { frame: 11, chalk: plain, columns: 80 })[0],
    "⠙ pod/web[app]      Waiting for readiness (2/3)",
  );
});

t.test("lines never wrap: each is cut short of the terminal's last column", async (t) => {
  const lines = renderStatusFrame(rows, { frame: 0, chalk: plain, columns: 30 });
  t.same(lines[0], "⠋ pod/web[app]      Waiting …");
  t.ok(lines.every((line) => [...line].length <= 29));
});

t.test("more rows than the screen has lines: the rest is counted", async (t) => {
  t.same(renderStatusFrame(rows, { frame: 0, chalk: plain, columns: 80, maxLines: 3 }), [
    "⠋ pod/web[app]      Waiting for readiness (2/3)",
    "… and 3 more",
  ]);
});

t.test("colours, when the terminal has them", async (t) => {
  const colour = new Chalk({ level: 1 });
  const [active, done, failed] = renderStatusFrame(rows, { frame: 0, chalk: colour, columns: 80 });
  t.equal(active, `${ESC}36m⠋${ESC}39m pod/web[app]      Waiting for readiness (2/3)`);
  t.match(done, `${ESC}32m✔${ESC}39m`);
  t.match(failed, `${ESC}31m✖${ESC}39m ${ESC}31mpod/web[db]`);
});

t.test("a redraw goes up over the previous block, clears below, prints lines above, then the block", async (t) => {
  t.equal(redrawSequence(0, ["a", "b"]), `\r${ESC}Ja\nb\n`);
  t.equal(redrawSequence(2, ["a", "b"], "event\n"), `${ESC}2A\r${ESC}Jevent\na\nb\n`);
});

t.test("events move a container's line along", async (t) => {
  t.same(["Pulling", "Pulled", "Created", "Started", "Failed", "Unhealthy"].map(statusOfEvent), [
    { text: "Pulling", tone: "active" },
    { text: "Creating", tone: "active" },
    { text: "Starting", tone: "active" },
    { text: "Running", tone: "active" },
    { text: "Failed", tone: "failed" },
    undefined,
  ]);
});

class Capture extends Writable {
  text = "";
  columns = 60;
  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

t.test("the renderer: hidden cursor, lines above the block, a last frame without spinner, cursor back", async (t) => {
  const stream = new Capture();
  const live = createLiveStatus({ stream, chalk: plain, labels: ["pod/web[app]", "pod/web[db]"], intervalMs: 60_000 });
  live.set("pod/web[app]", "Pulling", "active");
  live.print('12:00:00  Normal   Pulling  pod/web[app]  Pulling image "busybox"');
  live.set("pod/web[app]", "Ready", "done");
  live.set("pod/web[unknown]", "Ready", "done"); // not a row: ignored
  live.set("pod/web[db]", "Waiting for readiness (0/1)", "active");
  live.stop();
  live.print("after");
  t.equal(
    stream.text,
    [
      `${ESC}?25l`,
      `\r${ESC}J· pod/web[app]  Waiting\n· pod/web[db]   Waiting\n`,
      `${ESC}2A\r${ESC}J⠋ pod/web[app]  Pulling\n· pod/web[db]   Waiting\n`,
      `${ESC}2A\r${ESC}J12:00:00  Normal   Pulling  pod/web[app]  Pulling image "busybox"\n⠋ pod/web[app]  Pulling\n· pod/web[db]   Waiting\n`,
      `${ESC}2A\r${ESC}J✔ pod/web[app]  Ready\n· pod/web[db]   Waiting\n`,
      `${ESC}2A\r${ESC}J✔ pod/web[app]  Ready\n⠋ pod/web[db]   Waiting for readiness (0/1)\n`,
      `${ESC}2A\r${ESC}J✔ pod/web[app]  Ready\n· pod/web[db]   Waiting for readiness (0/1)\n`,
      `${ESC}?25h`,
      "after\n",
    ].join(""),
  );
});

t.test("with a live view, the console sink's lines go above it and it shows no spinner of its own", async (t) => {
  const { createConsoleSink } = await import("../../lib/output/console-sink.js");
  const { createRecorder } = await import("../../lib/events/recorder.js");
  const { toInvolvedObject } = await import("../../lib/events/types.js");
  const stream = Object.assign(new Capture(), { isTTY: true });
  const printed: string[] = [];
  const sink = createConsoleSink({ stream, env: {}, chalk: plain, live: { print: (line) => printed.push(line) } });
  createRecorder({ sinks: [sink], host: "h", clock: () => Date.parse("2025-03-01T12:00:00Z") }).event(
    toInvolvedObject({ name: "web", namespace: "default", uid: "u" }, { name: "app" }),
    "Warning",
    "Unhealthy",
    "Readiness probe failed: HTTP probe failed with statuscode: 503",
  );
  sink.startProgress("Pulling").stop();
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(printed.length, 1);
  t.match(
    printed[0],
    /Warning {2}Unhealthy {2}pod\/web\[app\] {2}Readiness probe failed: HTTP probe failed with statuscode: 503$/,
  );
  t.equal(stream.text, "", "nothing written around the live view");
});
