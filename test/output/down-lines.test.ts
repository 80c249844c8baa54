import { Chalk } from "chalk";
import t from "tap";
import type { DownOutcome } from "../../lib/apply/down.js";
import { formatDownOutcome, formatWorkloadGone } from "../../lib/output/down-lines.js";

// What `podrun down` prints of each pod (lib/apply/down.ts's outcomes) and of a workload with no
// pod left, as down.e2e.test.ts expects the lines (no colour here).

const color = new Chalk({ level: 0 });
const web = { name: "web", namespace: "default" };
const stopped = { containers: 2, volumes: 1, failures: [], hookFailures: [] };

const cases: { name: string; outcome: DownOutcome; json?: boolean; stdout?: string[]; stderr?: string[] }[] = [
  {
    name: "not found, a directory of that name",
    outcome: { status: "NotFound", target: { ...web, alsoDirectory: true }, durationMs: 3 },
    stdout: ["pod/web not found (web is also a directory here: podrun down ./web brings down its manifests' pods)"],
  },
  {
    name: "deleted, in a namespace",
    outcome: { status: "Deleted", target: { name: "web", namespace: "shop" }, durationMs: 1234, result: stopped },
    stdout: ["pod/web (namespace shop) deleted (2 containers, 1 volume, 1.2s)"],
  },
  {
    name: "not fully deleted, a preStop hook failed",
    outcome: {
      status: "Failed",
      target: web,
      durationMs: 500,
      result: {
        containers: 1,
        volumes: 0,
        failures: [{ object: "app", step: "remove", message: "busy" }],
        hookFailures: [{ container: "app", message: "exit 1" }],
      },
    },
    stderr: [
      "Warning: pod/web: container app: preStop hook failed: exit 1",
      "Error: FailedKillPod: pod/web: container app: could not remove it: busy",
      "pod/web not fully deleted (1 container, 0 volumes, 0.5s removed)",
    ],
  },
  {
    name: "--json",
    outcome: { status: "Deleted", target: web, durationMs: 1260, result: stopped },
    json: true,
    stdout: [
      JSON.stringify({
        pod: "web",
        namespace: "default",
        status: "Deleted",
        containers: 2,
        volumes: 1,
        durationSeconds: 1.3,
        failures: [],
        hookFailures: [],
      }),
    ],
  },
];

for (const c of cases)
  t.test(c.name, async (t) => {
    t.same(formatDownOutcome(c.outcome, { color, json: c.json === true }), {
      stdout: c.stdout ?? [],
      stderr: c.stderr ?? [],
    });
  });

t.test("a workload with no pod left", async (t) => {
  const workload = { ref: { kind: "Job", name: "migrate" }, namespace: "batch" };
  t.equal(
    formatWorkloadGone({ workload, recorded: false }, { json: false }),
    "job/migrate (namespace batch) not found",
  );
  t.equal(
    formatWorkloadGone({ workload, recorded: true }, { json: false }),
    "job/migrate (namespace batch) deleted (no pod left)",
  );
  t.equal(
    formatWorkloadGone({ workload, recorded: true }, { json: true }),
    JSON.stringify({ workload: "Job/migrate", namespace: "batch", status: "Deleted" }),
  );
});
