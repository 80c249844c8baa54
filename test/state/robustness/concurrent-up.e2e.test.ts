import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCli, type CliResult } from "../../harness/cli.js";
import { removeManagedContainers } from "../../harness/cleanup.js";
import { BUSYBOX, PAUSE, requireImage, requireRegistry } from "../../harness/engine.js";
import {
  eventId,
  listStateLeftovers,
  readBackoffFile,
  readEventLines,
  type LoggedEvent,
} from "../../harness/state-files.js";

// Eight `podrun up` processes at once, of different pods, sharing one state directory, on the
// real docker engine, for several rounds. Every process appends to the same event log, and every
// process takes the back-off lock: each pod's second container pulls with `Always` (the open
// registry serves busybox; a pull also runs the back-off check and gc), and some pods ask for an
// image the registry does not have, so back-off entries are written concurrently too.
// After each round: every event each process printed is in the log, every line parses, the
// back-off file parses and has one entry per failing pod, and no lock or temp file is left.

const RUNTIME = "docker";
const ROUNDS = 3;
const PODS = 8;
const FAILING = new Set([1, 4, 6]); // pod indexes whose second image is missing

interface Pod {
  name: string;
  file: string;
  failing: boolean;
  missingImage?: string;
}

const podYaml = (pod: Pod) => `apiVersion: v1
kind: Pod
metadata:
  name: ${pod.name}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
    - name: a
      image: ${BUSYBOX}
      command: ["sleep", "600"]
    - name: b
      image: ${pod.missingImage ?? BUSYBOX}
      imagePullPolicy: Always
      command: ["sleep", "600"]
`;

const parseStdout = (stdout: string): LoggedEvent[] =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LoggedEvent);

const sorted = (values: string[]) => [...values].sort();

t.test(`${PODS} concurrent podrun up against one state directory, ${ROUNDS} rounds`, async (t) => {
  if (
    !(await requireImage(t, RUNTIME, BUSYBOX)) ||
    !(await requireImage(t, RUNTIME, PAUSE)) ||
    !(await requireRegistry(t, "open"))
  )
    return;
  const stateDir = await mkdtemp(join(tmpdir(), "podrun-concurrent-state-"));
  const manifests = await mkdtemp(join(tmpdir(), "podrun-concurrent-"));
  t.teardown(() =>
    Promise.all([rm(stateDir, { recursive: true, force: true }), rm(manifests, { recursive: true, force: true })]),
  );
  const run = randomBytes(3).toString("hex");
  const figures: string[] = [];
  let failingSoFar = 0;

  // For scale: the same kind of pod alone, in a state directory of its own.
  const alone: Pod = { name: `conc-${run}-alone`, file: join(manifests, "alone.yaml"), failing: false };
  await writeFile(alone.file, podYaml(alone));
  t.teardown(() => removeManagedContainers(RUNTIME, { "io.kubernetes.pod.name": alone.name }).then(() => undefined));
  const aloneStarted = performance.now();
  const aloneResult = await runCli(["up", "--runtime", RUNTIME, "--json", alone.file], {
    env: { PODRUN_STATE_DIR: join(manifests, "alone-state") },
  });
  const aloneMs = performance.now() - aloneStarted;
  t.equal(aloneResult.exitCode, 0, aloneResult.stderr);
  await removeManagedContainers(RUNTIME, { "io.kubernetes.pod.name": alone.name });
  figures.push(`one such pod alone: ${(aloneMs / 1000).toFixed(2)} s`);
  let loggedBefore = 0;

  for (let round = 1; round <= ROUNDS; round++) {
    const pods: Pod[] = [];
    for (let i = 0; i < PODS; i++) {
      const name = `conc-${run}-r${round}-p${i}`;
      const failing = FAILING.has(i);
      const pod: Pod = {
        name,
        file: join(manifests, `${name}.yaml`),
        failing,
        ...(failing ? { missingImage: `127.0.0.1:5100/podrun-test/absent-${run}-${i}:1` } : {}),
      };
      await writeFile(pod.file, podYaml(pod));
      pods.push(pod);
    }
    t.teardown(() =>
      Promise.all(pods.map((pod) => removeManagedContainers(RUNTIME, { "io.kubernetes.pod.name": pod.name }))).then(
        () => undefined,
      ),
    );

    const started = performance.now();
    const processMs: number[] = [];
    const results: CliResult[] = await Promise.all(
      pods.map(async (pod) => {
        const result = await runCli(["up", "--runtime", RUNTIME, "--json", pod.file], {
          env: { PODRUN_STATE_DIR: stateDir },
          timeoutMs: 180_000,
        });
        processMs.push(performance.now() - started);
        return result;
      }),
    );
    const elapsedMs = performance.now() - started;

    await t.test(`round ${round}`, async (t) => {
      pods.forEach((pod, i) => {
        const result = results[i]!;
        t.equal(
          result.exitCode,
          pod.failing ? 1 : 0,
          `${pod.name}: exit code (${result.stderr.trim().split("\n").at(-1)})`,
        );
        if (pod.failing) t.match(result.stderr, /Error: ErrImagePull: pod\/.*: container b: /, `${pod.name}: says why`);
      });

      const log = await readEventLines(stateDir);
      t.same(log.invalid, [], "every line of the event log is an event");
      for (const [i, pod] of pods.entries()) {
        const printed = parseStdout(results[i]!.stdout);
        const logged = log.events.filter((e) => e.involvedObject.name === pod.name);
        t.same(
          sorted(logged.map(eventId)),
          sorted(printed.map(eventId)),
          `${pod.name}: every event it printed is in the log, once`,
        );
        if (pod.failing) {
          // Container a may or may not have started before b's pull failed: only b is certain.
          const b = logged.filter((e) => e.involvedObject.fieldPath === "spec.containers{b}").map((e) => e.reason);
          t.same(b, ["Pulling", "Failed", "Failed"], `${pod.name}: b's pull failed, in order`);
        } else {
          const expected = ["Pulled", "Pulled", "Created", "Started", "Pulling", "Pulled", "Created", "Started"];
          t.same(sorted(logged.map((e) => e.reason)), sorted(expected), `${pod.name}: its expected reasons`);
        }
      }

      const backoff = await readBackoffFile(stateDir);
      const failing = pods.filter((pod) => pod.failing);
      failingSoFar += failing.length;
      for (const pod of failing) {
        const entry = backoff.entries[`default/${pod.name}_${pod.missingImage}`];
        t.ok(entry, `${pod.name}: one back-off entry`);
        t.match(entry?.lastError, /^ErrImagePull: /);
      }
      t.equal(Object.keys(backoff.entries).length, failingSoFar, "one entry per failing pod so far, nothing else");
      t.same(await listStateLeftovers(stateDir), [], "no lock and no temp file left");

      // The failing pods removed what they had created; the others are removed here.
      for (const pod of pods) {
        const removed = await removeManagedContainers(RUNTIME, { "io.kubernetes.pod.name": pod.name });
        t.equal(
          removed.length,
          pod.failing ? 0 : 3,
          `${pod.name}: ${pod.failing ? "nothing left behind" : "sandbox and 2 containers"}`,
        );
      }

      const roundEvents = log.events.length - loggedBefore;
      loggedBefore = log.events.length;
      const seconds = (ms: number) => (ms / 1000).toFixed(2);
      processMs.sort((a, b) => a - b);
      figures.push(
        `round ${round}: ${PODS} pods in ${seconds(elapsedMs)} s wall (each podrun up: first done ${seconds(processMs[0]!)} s, median ${seconds(processMs[PODS / 2]!)} s, last ${seconds(processMs.at(-1)!)} s), ` +
          `${roundEvents} events logged (${log.events.length} in total), ${failing.length} back-off entries written (${Object.keys(backoff.entries).length} in the file)`,
      );
      t.comment(figures.at(-1)!);
    });
  }
  t.comment(
    `concurrency rounds (${RUNTIME}, ${PODS} concurrent podrun up, ${FAILING.size} with a missing image):\n${figures.join("\n")}`,
  );
});
