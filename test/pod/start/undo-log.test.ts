import t from "tap";
import { UndoLog, type CreatedByRun } from "../../../lib/pod/start/undo-log.js";

// The undo log as a table of runs: what a start logged, step by step, and what it then undoes.

type Op = (log: UndoLog) => void;

const cases: { name: string; ops: Op[]; want: CreatedByRun }[] = [
  { name: "nothing logged: nothing to undo", ops: [], want: { containerIds: [] } },
  {
    name: "a whole run: pod directory, volumes, sandbox, containers by ID in the order made",
    ops: [
      (log) => log.podDirectory("/state/pods/web"),
      (log) => log.volumes(["default_web_data"]),
      (log) => log.made(log.begin("sandbox", "default_web")),
      (log) => log.made(log.begin("container", "default_web_init"), "id-1"),
      (log) => log.made(log.begin("container", "default_web_a"), "id-2"),
    ],
    want: {
      containerIds: ["id-1", "id-2"],
      sandbox: "default_web",
      volumes: ["default_web_data"],
      podDir: "/state/pods/web",
    },
  },
  {
    name: "creates under way (cut off, or no answer): kept by name, after those made",
    ops: [
      (log) => {
        const a = log.begin("container", "default_web_a");
        log.begin("container", "default_web_b");
        log.made(a, "id-a");
      },
    ],
    want: { containerIds: ["id-a", "default_web_b"] },
  },
  {
    name: "a create the engine refused: nothing of it to undo",
    ops: [(log) => log.abandon(log.begin("container", "default_web_a"))],
    want: { containerIds: [] },
  },
  {
    name: "a sandbox whose create got no answer: undone by name",
    ops: [(log) => log.begin("sandbox", "default_web")],
    want: { containerIds: [], sandbox: "default_web" },
  },
  {
    name: "a sandbox refused: not this run's",
    ops: [(log) => log.abandon(log.begin("sandbox", "default_web"))],
    want: { containerIds: [] },
  },
  {
    name: "made though its create failed (created, not started): by ID; its timed-out name stays too",
    ops: [
      (log) => {
        log.begin("container", "default_web_a");
        log.madeContainer("id-a");
      },
    ],
    want: { containerIds: ["id-a", "default_web_a"] },
  },
  {
    name: "abandoning what was made already changes nothing",
    ops: [
      (log) => {
        const a = log.begin("container", "default_web_a");
        log.made(a, "id-a");
        log.abandon(a);
      },
    ],
    want: { containerIds: ["id-a"] },
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const log = new UndoLog();
    for (const op of c.ops) op(log);
    t.same(log.created(), c.want);
    t.strictSame(Object.keys(log.created()).sort(), Object.keys(c.want).sort(), "no empty field");
  });
}

t.test("containerIds is one array for the run: what is made later (a liveness restart) joins it", async (t) => {
  const log = new UndoLog();
  const ids = log.containerIds;
  log.made(log.begin("container", "default_web_a"), "id-a");
  log.made(log.begin("container", "default_web_a"), "id-a2");
  t.equal(log.containerIds, ids);
  t.same(ids, ["id-a", "id-a2"]);
});
