import { Chalk } from "chalk";
import t from "tap";
import { EngineError, PodrunError } from "../../lib/errors.js";
import { formatPodOutcome, formatPodProgress } from "../../lib/output/pod-outcome.js";
import type { PodOutcome, PodProgress } from "../../lib/pod/run-pod.js";
import type { StartedPod } from "../../lib/pod/start/start-pod.js";

// What `podrun up` prints of one pod: the outcome of runPod as lines, byte for byte as the
// end-to-end tests of up expect them (no colour here).

const color = new Chalk({ level: 0 });
const lines = (outcome: PodOutcome, json = false) => formatPodOutcome(outcome, { color, json });
const started: StartedPod = {
  containerIds: ["c1", "c2"],
  containers: [],
  initContainers: 1,
  sidecars: 1,
  appContainers: 2,
};

t.test("started: the summary line on standard output, none with --json", async (t) => {
  const outcome: PodOutcome = {
    status: "started",
    label: "pod/web",
    summary: { label: "pod/web", started, seconds: 0.94, runtime: "docker" },
  };
  t.same(lines(outcome), {
    stdout: ["pod/web: 2 containers and 1 sidecar started, 1 init container completed (0.9s, docker)"],
    stderr: [],
  });
  t.same(lines(outcome, true), { stdout: [], stderr: [] });
});

t.test("ready: containers and seconds", async (t) => {
  t.same(lines({ status: "ready", label: "pod/web", containers: 1, seconds: 2.06 }), {
    stdout: ["pod/web: ready: 1/1 container (2.1s)"],
    stderr: [],
  });
  t.same(lines({ status: "ready", label: "pod/web", containers: 3, seconds: 12 }).stdout, [
    "pod/web: ready: 3/3 containers (12.0s)",
  ]);
  t.same(lines({ status: "ready", label: "pod/web", containers: 3, seconds: 12 }, true).stdout, []);
});

t.test("planned (dry run): nothing, the commands are the output", async (t) => {
  t.same(lines({ status: "planned", label: "pod/web" }), { stdout: [], stderr: [] });
});

t.test("failed: what was undone, the error's details, then the error line", async (t) => {
  const error = new PodrunError("InitContainerFailed", 'init container "migrate" exited with code 3', {
    details: "  migrate: no database",
  });
  const outcome: PodOutcome = {
    status: "failed",
    label: "pod/web",
    notes: ["podrun: removed the 2 containers this run created for pod/web (--keep-on-failure keeps them)"],
    error,
  };
  t.same(lines(outcome), {
    stdout: [],
    stderr: [
      "podrun: removed the 2 containers this run created for pod/web (--keep-on-failure keeps them)",
      "  migrate: no database",
      'Error: InitContainerFailed: pod/web: init container "migrate" exited with code 3',
    ],
  });
  // --json changes standard output only.
  t.same(lines(outcome, true), lines(outcome));
});

t.test("failed on an engine command: no reason, the pod named", async (t) => {
  const outcome: PodOutcome = {
    status: "failed",
    label: "pod/db",
    notes: [],
    error: new EngineError("failed", "Error response from daemon: no such network"),
  };
  t.same(lines(outcome).stderr, ["Error: pod/db: Error response from daemon: no such network"]);
});

t.test("interrupted: the notes only (the command exits 130)", async (t) => {
  t.same(
    lines({
      status: "interrupted",
      label: "pod/web",
      notes: ["podrun: interrupted; pod/web left running (podrun down pod.yaml removes it)"],
    }),
    {
      stdout: [],
      stderr: ["podrun: interrupted; pod/web left running (podrun down pod.yaml removes it)"],
    },
  );
});

t.test("progress: unchanged containers, the wait's first line", async (t) => {
  const progress = (p: PodProgress, options: { json?: boolean; live?: boolean } = {}) =>
    formatPodProgress(p, { color, json: options.json === true, live: options.live === true });
  t.same(progress({ kind: "kept", label: "pod/web", unchanged: ["app", "sidecar"] }), [
    "pod/web[app] unchanged",
    "pod/web[sidecar] unchanged",
  ]);
  t.same(progress({ kind: "kept", label: "pod/web", unchanged: ["app"] }, { json: true }), []);
  const waiting: PodProgress = { kind: "waiting", label: "pod/web", started, timeoutMs: 90_000 };
  t.same(progress(waiting), ["pod/web: 2 containers and 1 sidecar started; waiting up to 90s for readiness"]);
  t.same(progress(waiting, { live: true }), [], "the live block shows the containers instead");
  t.same(progress(waiting, { json: true }), []);
  t.same(
    progress({
      kind: "containers",
      label: "pod/web",
      containers: [{ name: "app", state: "Ready", ready: true, failed: false }],
    }),
    [],
  );
});
