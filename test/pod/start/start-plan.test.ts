import type { Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultPod } from "../../../lib/manifest/defaults.js";
import type { PodPlan } from "../../../lib/pod/reconcile/reconcile-plan.js";
import { keptPodOf, planStart, type KeptPod } from "../../../lib/pod/start/start-plan.js";

// The start plan as a table: a pod (new or kept, own network or the host's, dry run or not) in,
// what startPod's steps do out. start-pod*.test.ts carry plans out on the fake engine.

const pod = (spec: Partial<Pod["spec"]>): Pod =>
  defaultPod({ apiVersion: "v1", kind: "Pod", metadata: { name: "web" }, spec: { containers: [], ...spec } });

const probe = { exec: { command: ["true"] } };
const full = pod({
  initContainers: [
    { name: "init", image: "x:1" },
    { name: "side", image: "x:1", restartPolicy: "Always", startupProbe: probe },
    { name: "log", image: "x:1", restartPolicy: "Always" },
  ],
  containers: [
    { name: "a", image: "x:1" },
    { name: "b", image: "x:1" },
  ],
});
const hostNet = pod({ hostNetwork: true, containers: [{ name: "a", image: "x:1" }] });

interface Row {
  name: string;
  pod: Pod;
  kept?: KeptPod;
  dryRun?: boolean;
  runHooks?: boolean;
  want: {
    sandbox: string;
    volumes: "create" | "keep";
    init: string[];
    apps: string[];
    runHooks: boolean;
    dryRun: boolean;
    hostNetwork: boolean;
    completeHostsFile: boolean;
  };
}

const rows: Row[] = [
  {
    name: "a new pod: sandbox, volumes, every init container in order (a sidecar's startup waited for), every app",
    pod: full,
    want: {
      sandbox: "create",
      volumes: "create",
      init: ["init:init", "side:sidecar:wait", "log:sidecar"],
      apps: ["a", "b"],
      runHooks: true,
      dryRun: false,
      hostNetwork: false,
      completeHostsFile: true,
    },
  },
  {
    name: "a kept pod: its sandbox and volumes stay, no init step, only the apps the reconcile plan names",
    pod: full,
    kept: { sandboxId: "infra-id", create: ["b"] },
    want: {
      sandbox: "keep:infra-id",
      volumes: "keep",
      init: [],
      apps: ["b"],
      runHooks: true,
      dryRun: false,
      hostNetwork: false,
      completeHostsFile: true,
    },
  },
  {
    name: "a kept pod with every container unchanged: nothing to start (its volume files are still rewritten)",
    pod: full,
    kept: { sandboxId: "infra-id", create: [] },
    want: {
      sandbox: "keep:infra-id",
      volumes: "keep",
      init: [],
      apps: [],
      runHooks: true,
      dryRun: false,
      hostNetwork: false,
      completeHostsFile: true,
    },
  },
  {
    name: "a dry run: no hook, no startup probe waited for, no hosts file completed",
    pod: full,
    dryRun: true,
    runHooks: false,
    want: {
      sandbox: "create",
      volumes: "create",
      init: ["init:init", "side:sidecar", "log:sidecar"],
      apps: ["a", "b"],
      runHooks: false,
      dryRun: true,
      hostNetwork: false,
      completeHostsFile: false,
    },
  },
  {
    name: "hooks off alone: the startup probe is not waited for, the disk is still written",
    pod: full,
    runHooks: false,
    want: {
      sandbox: "create",
      volumes: "create",
      init: ["init:init", "side:sidecar", "log:sidecar"],
      apps: ["a", "b"],
      runHooks: false,
      dryRun: false,
      hostNetwork: false,
      completeHostsFile: true,
    },
  },
  {
    name: "the host's network: no sandbox, no hosts line of its own",
    pod: hostNet,
    want: {
      sandbox: "none",
      volumes: "create",
      init: [],
      apps: ["a"],
      runHooks: true,
      dryRun: false,
      hostNetwork: true,
      completeHostsFile: false,
    },
  },
  {
    name: "the host's network, kept: still no sandbox",
    pod: hostNet,
    kept: { create: ["a"] },
    want: {
      sandbox: "none",
      volumes: "keep",
      init: [],
      apps: ["a"],
      runHooks: true,
      dryRun: false,
      hostNetwork: true,
      completeHostsFile: false,
    },
  },
];

for (const row of rows) {
  t.test(row.name, async (t) => {
    const plan = planStart({ pod: row.pod, kept: row.kept, dryRun: row.dryRun, runHooks: row.runHooks });
    const sandbox =
      plan.sandbox.action === "keep" ? `keep${plan.sandbox.id ? `:${plan.sandbox.id}` : ""}` : plan.sandbox.action;
    t.same(
      {
        sandbox,
        volumes: plan.volumes,
        init: plan.initContainers.map((s) =>
          [s.container.name, s.kind, ...(s.waitForStartup ? ["wait"] : [])].join(":"),
        ),
        apps: plan.appContainers.map((c) => c.name),
        runHooks: plan.runHooks,
        dryRun: plan.dryRun,
        hostNetwork: plan.hostNetwork,
        completeHostsFile: plan.completeHostsFile,
      },
      row.want,
    );
  });
}

t.test("restartable: the sidecars and app containers, whatever the plan starts", async (t) => {
  for (const kept of [undefined, { create: [] }]) {
    const plan = planStart({ pod: full, kept });
    t.same(
      plan.restartable.map((c) => c.name),
      ["side", "log", "a", "b"],
    );
  }
});

t.test("keptPodOf: the reconcile plan's part for the start", async (t) => {
  const base: PodPlan = { action: "keep", keep: ["a"], recreate: ["b"], notRunning: [], create: ["c"], remove: ["d"] };
  const cases: { name: string; plan: PodPlan | undefined; sandboxId?: string; want: KeptPod | undefined }[] = [
    { name: "no reconciliation (a dry run): a new pod", plan: undefined, want: undefined },
    { name: "create: a new pod", plan: { ...base, action: "create" }, want: undefined },
    { name: "recreate-pod: a new pod", plan: { ...base, action: "recreate-pod", cause: "replace" }, want: undefined },
    {
      name: "keep: the recreated, then the new, in the kept sandbox",
      plan: base,
      sandboxId: "infra-id",
      want: { sandboxId: "infra-id", create: ["b", "c"] },
    },
    {
      name: "keep with the host's network: no sandbox ID",
      plan: base,
      want: { sandboxId: undefined, create: ["b", "c"] },
    },
  ];
  for (const c of cases) t.same(keptPodOf(c.plan, c.sandboxId), c.want, c.name);
});
