// The engine-neutral contract of ContainerRuntime (lib/runtime/types.ts), as one set of cases run
// against every implementation: the fake of the unit tests (contract.test.ts) and CliRuntime on
// docker and podman (contract.e2e.test.ts). A new implementation passes these before anything
// else is wired to it. Every object a case makes carries io.podrun.managed and the pod's name
// label, so that test/harness/cleanup.ts finds it when a case fails midway.
import type { Test } from "tap";
import { EngineError } from "../../lib/errors.js";
import { formatInfraName } from "../../lib/runtime/dialects.js";
import {
  LABEL_CONTAINER_NAME,
  LABEL_MANAGED,
  LABEL_POD_NAME,
  LABEL_POD_NAMESPACE,
  LABEL_POD_UID,
  type ContainerRuntime,
  type ContainerSpec,
  type SandboxSpec,
} from "../../lib/runtime/types.js";

export interface ContractSubject {
  runtime: ContainerRuntime;
  /** A pod name of this case's own: every object is named after it and labelled with it. */
  pod: string;
  /** An image with `sh` and `sleep`, present locally. */
  image: string;
  /** The infra image, present locally. */
  pauseImage: string;
}

const podLabels = (pod: string, container: string): Record<string, string> => ({
  [LABEL_MANAGED]: "true",
  [LABEL_POD_NAME]: pod,
  [LABEL_POD_NAMESPACE]: "default",
  [LABEL_POD_UID]: `uid-${pod}`,
  [LABEL_CONTAINER_NAME]: container,
});

const sandboxSpec = (s: ContractSubject): SandboxSpec => ({
  name: `default_${s.pod}`,
  image: s.pauseImage,
  labels: podLabels(s.pod, "POD"),
  hostname: s.pod,
  ports: [],
  hostNetwork: false,
});

const containerSpec = (s: ContractSubject, name: string): ContainerSpec => ({
  name: `default_${s.pod}_${name}`,
  image: s.image,
  command: ["sleep", "600"],
  labels: podLabels(s.pod, name),
  sandbox: `default_${s.pod}`,
  hostNetwork: false,
  restartPolicy: "no",
  stopTimeoutSeconds: 0,
});

/** Rejects with an EngineError of `kind`, whatever the engine's words. */
async function rejectsAs(t: Test, promise: Promise<unknown>, kind: EngineError["kind"], what: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(error, EngineError, `${what}: an EngineError`);
  t.equal((error as EngineError | undefined)?.kind, kind, `${what}: ${kind}`);
  t.match((error as Error | undefined)?.message, /^[^\n]+$/, `${what}: one line`);
}

export interface ContractCase {
  name: string;
  run(t: Test, subject: ContractSubject): Promise<void>;
}

export const CONTRACT_CASES: readonly ContractCase[] = [
  {
    name: "a sandbox and a container in it: created, started, inspected, listed by label, removed with the sandbox",
    async run(t, s) {
      const { runtime } = s;
      const sandbox = sandboxSpec(s);
      await runtime.createSandbox(sandbox);
      await runtime.startSandbox(sandbox.name);
      const id = await runtime.createContainer(containerSpec(s, "app"));
      t.ok(id, "createContainer returns an ID");
      const [created] = await runtime.inspectContainers([id]);
      t.equal(created?.running, false, "created, not started");
      await runtime.startContainer(id);
      const [running] = await runtime.inspectContainers([id]);
      t.equal(running?.running, true, "started");
      t.equal(running?.name, containerSpec(s, "app").name, "by the name given");
      t.match(running?.labels, podLabels(s.pod, "app"), "with its labels");

      const listed = await runtime.listContainers({ [LABEL_POD_NAME]: s.pod, [LABEL_MANAGED]: "true" });
      t.same(listed.map((c) => c.labels[LABEL_CONTAINER_NAME]).sort(), ["POD", "app"], "both, by label");
      t.same(
        await runtime
          .listContainers({ [LABEL_POD_NAME]: s.pod, [LABEL_CONTAINER_NAME]: "app" })
          .then((l) => l.map((c) => c.id)),
        [running!.id],
        "every label must match",
      );
      const named = await runtime.listContainersNamed(`default_${s.pod}_`);
      t.same(
        named.map((c) => c.name).sort(),
        [formatInfraName(sandbox.name), containerSpec(s, "app").name].sort(),
        "by name prefix",
      );

      const pod = await runtime.findPod(sandbox.name);
      if (runtime.capabilities.sandbox === "pod") t.equal(pod?.name, sandbox.name, "the engine's own pod");
      else t.equal(pod, undefined, "no pods on an infra-container engine");

      await runtime.stopContainer(id, 0);
      t.equal((await runtime.inspectContainers([id]))[0]?.running, false, "stopped");
      await runtime.removeSandbox(sandbox.name);
      t.same(await runtime.listContainers({ [LABEL_POD_NAME]: s.pod }), [], "the sandbox took its container with it");
    },
  },
  {
    name: "what is not there: removing and stopping succeed, inspecting leaves it out, starting is not-found",
    async run(t, s) {
      const { runtime } = s;
      const ghost = `default_${s.pod}_ghost`;
      await runtime.removeContainers([ghost]);
      await runtime.stopContainer(ghost, 0);
      await runtime.removeSandbox(`default_${s.pod}`);
      await runtime.removeVolumes([`${s.pod}-ghost`]);
      t.same(await runtime.inspectContainers([ghost]), [], "inspect: left out");
      t.equal((await runtime.inspectImages([`${s.image}-absent`])).size, 0, "an absent image: left out");
      t.same(await runtime.listContainers({ [LABEL_POD_NAME]: s.pod }), [], "no container carries the labels");
      await rejectsAs(t, runtime.startContainer(ghost), "not-found", "startContainer");
      await rejectsAs(t, runtime.inspectVolumeMountpoint(`${s.pod}-ghost`), "not-found", "inspectVolumeMountpoint");
    },
  },
  {
    name: "a name that is taken: create fails, the holder is left as it was",
    async run(t, s) {
      const { runtime } = s;
      const spec = containerSpec(s, "app");
      const id = await runtime.createContainer({ ...spec, sandbox: undefined });
      await rejectsAs(t, runtime.createContainer({ ...spec, sandbox: undefined }), "conflict", "createContainer");
      t.same(
        (await runtime.inspectContainers([spec.name])).map((c) => c.id),
        [(await runtime.inspectContainers([id]))[0]?.id],
        "the holder is still there",
      );
      await runtime.removeContainers([id]);
      t.same(await runtime.inspectContainers([id]), [], "removed");
    },
  },
  {
    name: "exec: the command's own exit code is the answer; exec in a stopped container is an EngineError",
    async run(t, s) {
      const { runtime } = s;
      const spec = { ...containerSpec(s, "app"), sandbox: undefined };
      const id = await runtime.createContainer(spec, { start: true });
      t.equal((await runtime.execInContainer(id, ["sh", "-c", "exit 3"])).exitCode, 3, "exit 3");
      t.equal((await runtime.execInContainer(id, ["true"])).exitCode, 0, "exit 0");
      await runtime.stopContainer(id, 0);
      const error = await runtime.execInContainer(id, ["true"]).catch((e: unknown) => e);
      t.type(error, EngineError, "a stopped container: EngineError");
      t.match((error as EngineError).kind, /^(conflict|failed)$/, "not a timeout nor not-found");
      await runtime.removeContainers([id]);
    },
  },
  {
    name: "volumes: created with labels, listed by them, removed; one in use is not removed",
    async run(t, s) {
      const { runtime } = s;
      const volume = `${s.pod}-data`;
      const labels = { [LABEL_MANAGED]: "true", [LABEL_POD_NAME]: s.pod };
      await runtime.createVolume(volume, labels);
      t.same(
        (await runtime.listVolumes(labels)).map((v) => v.name),
        [volume],
        "listed by its labels",
      );
      const user = await runtime.createContainer({
        ...containerSpec(s, "user"),
        sandbox: undefined,
        mounts: [{ volume, target: "/data", readOnly: false }],
      });
      const inUse = await runtime.removeVolumes([volume]).catch((e: unknown) => e);
      t.type(inUse, EngineError, "in use: EngineError");
      t.same(
        (await runtime.listVolumes(labels)).map((v) => v.name),
        [volume],
        "and still there",
      );
      await runtime.removeContainers([user]);
      await runtime.removeVolumes([volume]);
      t.same(await runtime.listVolumes(labels), [], "removed");
    },
  },
  {
    name: "networks: made once (a second ensure finds it), a sandbox joins it with aliases, in use it stays, then removed",
    async run(t, s) {
      const { runtime } = s;
      const name = `${s.pod}-net`;
      const labels = { [LABEL_MANAGED]: "true", [LABEL_POD_NAME]: s.pod };
      t.teardown(async () => {
        await runtime.removeSandbox(`default_${s.pod}`);
        await runtime.removeNetwork(name);
      });
      // Three runs at once make one network, each time (dockerd 20.10 alone would make twins of one
      // name, whose name no container can then start on: lib/runtime/network.ts).
      for (let round = 1; round <= 3; round++) {
        const made = await Promise.all([1, 2, 3].map(() => runtime.ensureNetwork(name, labels)));
        t.same(new Set(made.map((n) => n.id)).size, 1, `round ${round}: the three got one network`);
        if (round < 3) t.equal(await runtime.removeNetwork(name), true, "removed, for the next round");
      }
      const [first, second] = await Promise.all([
        runtime.ensureNetwork(name, labels),
        runtime.ensureNetwork(name, labels),
      ]);
      t.equal(first.name, name, "made");
      t.equal(second.name, name, "the second run at once finds it");

      t.equal(first.labels[LABEL_POD_NAME], s.pod, "with its labels");
      t.ok(first.dns, "with the engine's DNS");
      t.match(first.dnsServer, /^\d+\.\d+\.\d+\.\d+$/, "and an address to ask it at");
      await runtime.createSandbox({ ...sandboxSpec(s), network: { name, aliases: [`${s.pod}.ns.svc.cluster.local`] } });
      await runtime.startSandbox(`default_${s.pod}`);
      t.equal(await runtime.removeNetwork(name), false, "in use: kept");
      await runtime.removeSandbox(`default_${s.pod}`);
      t.equal(await runtime.removeNetwork(name), true, "unused: removed");
      t.equal(await runtime.removeNetwork(name), true, "missing: success");
    },
  },
];

/** Runs every case as a subtest of `t`, each with a subject of its own from `subject` (undefined: skipped). */
export async function runContract(
  t: Test,
  subject: (t: Test, caseIndex: number) => Promise<ContractSubject | undefined>,
): Promise<void> {
  for (const [index, contractCase] of CONTRACT_CASES.entries()) {
    await t.test(contractCase.name, async (t) => {
      const s = await subject(t, index);
      if (s) await contractCase.run(t, s);
    });
  }
}
