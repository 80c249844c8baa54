import { execa } from "execa";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Test } from "tap";
import { CLUSTER_NETWORK_NAME } from "../../lib/pod/cluster-network.js";
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { SERVICE_PROXY_CONFIG_FILE, SERVICE_PROXY_IMAGE } from "../../lib/services/proxy-config.js";
import { LABEL_SERVICE_NAME, proxyContainerName, serviceDirectory } from "../../lib/services/service-proxy.js";
import { PODRUN_BIN, runCli, type CliResult } from "./cli.js";
import { removeManagedContainers } from "./cleanup.js";
import { requireImage, requirePodEngine, requireRegistry, requireTestEnv } from "./engine.js";
import { BUSYBOX, testPodHeader, uniqueName } from "./engine-pod.js";
import {
  describeKillPoint,
  drawKillPoints,
  KILL_ONLY,
  KILL_SEED,
  KILL_SEED_FROM,
  readEngineCalls,
  resetEngineCalls,
  waitForEngineCalls,
  writeKillShim,
  type EngineCall,
  type KillPoint,
} from "./kill-shim.js";
import { listStateLeftovers, readBackoffFile, readEventLines } from "./state-files.js";

// The kill tests' cases, for one engine (test/state/robustness/kill-points.<engine>.e2e.test.ts):
// `podrun up` of a pod that goes through many steps, with a ClusterIP Service (a proxy) and a
// headless Service selecting it, is SIGKILLed at seeded points (kill-shim.ts). Once every engine
// call the dead run left under way has ended, the state directory must parse; then, as drawn for
// the point, either `podrun down FILE` must leave nothing of the pod and its Services (by label
// and by name: containers, podman pods and storage-only containers, volumes, the proxy, the pod's
// and the Service's directories, and the cluster network when nothing else of podrun holds it),
// or `up` must bring it up whole over what the kill left, and `down` leave nothing. (An `up`
// after a `down` that left nothing would be an up from scratch, which every other test runs: it
// is not run again here.) Each case has a pod, Services and a state directory of its own, so two
// run at once.

const SECRET_VALUE = "kill-test-token";
// Exits at once on SIGTERM, so that `down` does not wait out the grace period.
const IDLE = `["sh", "-c", "trap 'exit 0' TERM; sleep 600 & wait"]`;

/** The headless Service of pod `name` (the ClusterIP one is named as the pod). */
const headlessName = (name: string) => `${name}-h`;

/**
 * The pod: an emptyDir, a configMap and a secret volume, an init container, a sidecar, two app
 * containers (one with a postStart hook); `pullAlways` makes the second app container pull. Two
 * Services select it: a ClusterIP one (a proxy container, its endpoint config in the state
 * directory) and a headless one (the pod's sandbox joins the cluster network under its name).
 */
export function killTestPod(name: string, options: { pullAlways?: boolean } = {}): string {
  return `apiVersion: v1
kind: Service
metadata: {name: ${name}}
spec:
  selector: {app: ${name}}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: ${headlessName(name)}}
spec:
  clusterIP: None
  selector: {app: ${name}}
  ports: [{port: 80}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-cm
data:
  greeting: hello
---
apiVersion: v1
kind: Secret
metadata:
  name: ${name}-s
stringData:
  token: ${SECRET_VALUE}
---
${testPodHeader(name).replace("\nspec:\n", `\n  labels: {app: ${name}}\nspec:\n`)}  volumes:
    - {name: data, emptyDir: {}}
    - {name: config, configMap: {name: ${name}-cm}}
    - {name: creds, secret: {secretName: ${name}-s}}
  initContainers:
    - name: init
      image: ${BUSYBOX}
      command: ["sh", "-c", "echo init-ran > /data/init"]
      volumeMounts: [{name: data, mountPath: /data}]
    - name: sidecar
      image: ${BUSYBOX}
      restartPolicy: Always
      command: ${IDLE}
      volumeMounts: [{name: data, mountPath: /data}]
  containers:
    - name: app
      image: ${BUSYBOX}
      command: ${IDLE}
      volumeMounts:
        - {name: data, mountPath: /data}
        - {name: config, mountPath: /config}
        - {name: creds, mountPath: /creds}
      lifecycle:
        postStart:
          exec: {command: ["sh", "-c", "echo hook-ran > /data/poststart"]}
    - name: web
      image: ${BUSYBOX}
${options.pullAlways ? "      imagePullPolicy: Always\n" : ""}      command: ${IDLE}
      volumeMounts: [{name: data, mountPath: /data}]
`;
}

/**
 * Whatever of pod `name` and its Services the engine or the state directory still has, one line
 * each (empty: nothing).
 */
export async function findPodRemains(runtime: RuntimeName, name: string, stateDir: string): Promise<string[]> {
  // Everything listed, matched here by label or by name: a filter would AND the two.
  const label = (key: string) => (runtime === "docker" ? `{{.Label "${key}"}}` : `{{index .Labels "${key}"}}`);
  const services = [name, headlessName(name)];
  const proxies = services.map((service) => proxyContainerName("default", service));
  const list = async (what: string, args: string[], nameField: string) => {
    const format = `${nameField}|${label("io.kubernetes.pod.name")}|${label(LABEL_SERVICE_NAME)}`;
    const lines = (await listRetried(runtime, [...args, "--format", format])).split("\n").filter(Boolean);
    return lines.flatMap((line) => {
      const [object = "", pod, service = ""] = line.split("|");
      return pod === name ||
        object === `default_${name}` ||
        object.startsWith(`default_${name}_`) ||
        services.includes(service) ||
        proxies.includes(object)
        ? [`${what} ${object}`]
        : [];
    });
  };
  const found = await Promise.all([
    // podman's --external adds what its storage has but its database lost (a `create` killed midway): it still holds the name.
    list("container", ["ps", "-a", ...(runtime === "podman" ? ["--external"] : [])], "{{.Names}}"),
    list("volume", ["volume", "ls"], "{{.Name}}"),
    ...(runtime === "podman" ? [list("pod", ["pod", "ps"], "{{.Name}}")] : []),
  ]);
  const remains = found.flat();
  if (existsSync(join(stateDir, "pods", runtime, `default_${name}`))) remains.push("pod directory");
  for (const service of services)
    if (existsSync(serviceDirectory(stateDir, runtime, "default", service)))
      remains.push(`service/${service} directory`);
  return remains;
}

/**
 * A listing, tried again while it fails on an object removed under it: `podman ps --external` looks
 * each storage container up in turn, and fails ("container not known") on one another test's
 * `down` removed meanwhile. Another failure is the test's at once.
 */
async function listRetried(runtime: RuntimeName, args: string[]): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const listed = await runCommand(runtime, args, { reject: false });
    if (listed.exitCode === 0) return listed.stdout;
    if (attempt >= 3 || !/not known|no such/i.test(listed.stderr))
      throw new Error(`${runtime} ${args.join(" ")}: exit ${listed.exitCode}: ${listed.stderr.trim()}`);
  }
}

/** The cluster network's ID, or undefined when the engine has none. */
async function clusterNetworkId(runtime: RuntimeName): Promise<string | undefined> {
  const inspected = await runCommand(runtime, ["network", "inspect", "--format", "{{.Id}}", CLUSTER_NETWORK_NAME], {
    reject: false,
  });
  return inspected.exitCode === 0 ? inspected.stdout.trim() || undefined : undefined;
}

/** What is wrong with the state directory after a kill (empty: it parses). */
export async function checkStateAfterKill(stateDir: string, runtime: RuntimeName, name: string): Promise<string[]> {
  const problems: string[] = [];
  const log = await readEventLines(stateDir);
  const lines = log.text.split("\n").filter(Boolean).length;
  // A kill inside a write(2) may tear the last line, which readers skip; any other is broken.
  const broken = log.invalid.filter((n) => !(n === lines && !log.text.endsWith("\n")));
  if (broken.length > 0) problems.push(`event log lines ${broken.join(", ")} are not events`);
  if (existsSync(join(stateDir, "backoff.json")))
    await readBackoffFile(stateDir).catch((error: Error) => problems.push(`backoff.json: ${error.message}`));
  const podDir = join(stateDir, "pods", runtime, `default_${name}`);
  if (existsSync(podDir)) {
    const hosts = await readFile(join(podDir, "etc-hosts"), "utf8").catch(() => undefined);
    // Written in place (a running container's bind mount holds the file): empty, or whole.
    if (
      hosts !== undefined &&
      hosts !== "" &&
      !(hosts.startsWith("# Kubernetes-managed hosts file.\n") && hosts.endsWith("\n"))
    )
      problems.push(`etc-hosts is half written: ${JSON.stringify(hosts)}`);
    // A volume's files are swapped in by one rename: absent, or whole.
    for (const [file, want] of [
      ["volumes/config/greeting", "hello"],
      ["volumes/creds/token", SECRET_VALUE],
    ] as const) {
      const content = await readFile(join(podDir, file), "utf8").catch(() => undefined);
      if (content !== undefined && content !== want) problems.push(`${file} holds ${JSON.stringify(content)}`);
    }
  }
  return problems;
}

/**
 * Whether the pod runs whole, from inside it: what is wrong (empty: nothing). `appCreated`: this
 * run made the app container, so its postStart hook ran. An app container the kill left running
 * is kept, and its hook is not run again, as the kubelet runs a hook only when it starts the
 * container: killed before its hook, it runs without it. Its ClusterIP Service's proxy runs, and
 * its endpoint config lists the pod.
 */
async function checkPodRuns(
  runtime: RuntimeName,
  name: string,
  stateDir: string,
  appCreated: boolean,
): Promise<string[]> {
  const problems: string[] = [];
  const containers = ["init", "sidecar", "app", "web"].map((c) => `default_${name}_${c}`);
  const inspected = await runCommand(
    runtime,
    ["inspect", "--format", "{{.Name}} {{.State.Status}} {{.State.ExitCode}}", ...containers],
    { reject: false },
  );
  const states = inspected.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => line.replace(/^\//, ""));
  const want = [`${containers[0]} exited 0`, ...containers.slice(1).map((c) => `${c} running 0`)];
  if (states.join("\n") !== want.join("\n"))
    problems.push(`containers: ${JSON.stringify(states)}, want ${JSON.stringify(want)}`);
  const seen = await runCommand(
    runtime,
    ["exec", containers[2]!, "cat", "/data/init", "/data/poststart", "/config/greeting", "/creds/token"],
    { reject: false },
  );
  const whole = `init-ran\nhook-ran\nhello${SECRET_VALUE}`;
  const withoutHook = `init-ran\nhello${SECRET_VALUE}`;
  if (seen.stdout !== whole && (appCreated || seen.stdout !== withoutHook))
    problems.push(`app sees ${JSON.stringify(seen.stdout)} (${seen.stderr.trim()})`);
  const proxy = proxyContainerName("default", name);
  const proxyState = await runCommand(runtime, ["inspect", "--format", "{{.State.Status}}", proxy], { reject: false });
  if (proxyState.stdout.trim() !== "running")
    problems.push(`proxy ${proxy}: ${proxyState.stdout.trim()} ${proxyState.stderr.trim()}`);
  const configFile = join(serviceDirectory(stateDir, runtime, "default", name), "proxy", SERVICE_PROXY_CONFIG_FILE);
  const config = await readFile(configFile, "utf8").catch((error: Error) => error.message);
  let endpoints: unknown;
  try {
    endpoints = (JSON.parse(config) as { ports?: { endpoints?: { pod?: string; port?: number }[] }[] }).ports?.map(
      (port) => port.endpoints?.map((e) => `${e.pod}:${e.port}`),
    );
  } catch {
    endpoints = config;
  }
  if (JSON.stringify(endpoints) !== JSON.stringify([[`${name}:8080`]]))
    problems.push(`service/${name}'s endpoints: ${JSON.stringify(endpoints)}, want ${name}:8080`);
  return problems;
}

interface CaseResult {
  /** How `up` ended: SIGKILL, or an exit code when the point was past its last call. */
  killedBy: string;
  /** Why the point could not be reached (the network to be made was in use), when so. */
  unreachable?: string;
  /** Milliseconds of each step, for the comment. */
  timings: string[];
  killedCall?: EngineCall;
  calls: number;
  stillRunning: EngineCall[];
  stateProblems: string[];
  /** down-first: the `down` right after the kill, and what it left. */
  down?: CliResult;
  remainsAfterDown?: string[];
  /** up-first: the `up` over what the kill left, what is wrong with the pod, the `down` after it and what that left. */
  up?: { up: CliResult; podProblems: string[]; down: CliResult; remains: string[] };
  stateLeftovers: string[];
  eventLogBroken: number[];
}

/** Runs `podrun up` with `env`, SIGKILLed by the shim at its point or after `afterMs`. */
async function killedUp(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  afterMs?: number,
): Promise<string> {
  const child = execa(process.execPath, [PODRUN_BIN, "up", file, ...args], {
    reject: false,
    env: { NO_COLOR: "1", FORCE_COLOR: "0", ...env },
    stdin: "ignore",
    timeout: 120_000,
  });
  const timer = afterMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), afterMs);
  const result = await child;
  clearTimeout(timer);
  return result.signal ?? `exit ${result.exitCode} (${String(result.stderr).trim().split("\n").at(-1)})`;
}

/** `down`, then what it left of the pod, its Services and (`network`) the cluster network. */
async function downAndFindRemains(
  runtime: RuntimeName,
  name: string,
  file: string,
  env: Record<string, string>,
): Promise<{ down: CliResult; remains: string[] }> {
  // The cluster network is not among the remains: `down` keeps it (lib/apply/down.ts).
  const down = await runCli(["down", file], { env });
  return { down, remains: await findPodRemains(runtime, name, env.PODRUN_STATE_DIR!) };
}

/**
 * Before a kill at the cluster network's create: the network removed when no podrun container is
 * on the engine, as `down` removes it (a run between its ensure and its sandbox makes it anew:
 * lib/pod/cluster-network.ts). Why it is still there, when it is.
 */
async function removeUnusedNetwork(runtime: RuntimeName): Promise<string | undefined> {
  const podrun = await runCommand(runtime, ["ps", "-aq", "--filter", "label=io.podrun.managed=true"]);
  if (podrun.stdout.trim() !== "")
    return `other podrun containers hold the ${CLUSTER_NETWORK_NAME} network: no create to kill at`;
  await runCommand(runtime, ["network", "rm", CLUSTER_NETWORK_NAME], { reject: false });
  return (await clusterNetworkId(runtime)) === undefined
    ? undefined
    : `the ${CLUSTER_NETWORK_NAME} network could not be removed: no create to kill at`;
}

async function runCase(
  runtime: RuntimeName,
  dir: string,
  point: KillPoint,
  proxyRemote: string | undefined,
): Promise<{ name: string; result: CaseResult }> {
  const name = uniqueName("kill");
  const stateDir = join(dir, "state");
  const file = join(dir, "pod.yaml");
  // A pull of the proxy's image: the open registry's copy, made absent from the engine (no other test uses it).
  const proxyPull = point.at === "pull" && point.pullOf === "proxy" && proxyRemote !== undefined;
  await writeFile(file, killTestPod(name, { pullAlways: point.at === "pull" && !proxyPull }));
  const shim = (await writeKillShim(dir, runtime))!;
  const env = { PODRUN_STATE_DIR: stateDir, PODRUN_RUNTIME: runtime };
  const upArgs: string[] = [];
  let unreachable: string | undefined;
  if (proxyPull) {
    await runCommand(runtime, ["rmi", proxyRemote], { reject: false });
    upArgs.push("--service-proxy-image", proxyRemote);
    if ((await runCommand(runtime, ["image", "inspect", proxyRemote], { reject: false })).exitCode === 0)
      unreachable = `${proxyRemote} could not be removed: no pull to kill at`;
  }
  // Run alone (runKillSuite): the one case where what `down` does with the network is its own.
  const alone = point.at === "network-create";
  if (alone) unreachable = await removeUnusedNetwork(runtime);
  const timings: string[] = [];
  let mark = performance.now();
  const lap = (what: string) => {
    const now = performance.now();
    timings.push(`${what} ${Math.round(now - mark)}`);
    mark = now;
  };
  const killedBy = await killedUp(
    file,
    upArgs,
    { ...env, ...shim.envFor(point) },
    typeof point.at === "object" ? point.at.afterMs : undefined,
  );
  // What the dead run had under way finishes first: then the engine holds what it left.
  const stillRunning = await waitForEngineCalls(shim.callsDir);
  lap("killed up");
  const calls = await readEngineCalls(shim.callsDir);
  // Another test's `up` may make the network between its removal and this run (tap runs files side
  // by side): then there was no create to kill at, and the run went on to the end.
  if (alone && !unreachable && killedBy !== "SIGKILL" && !calls.some((c) => c.args.startsWith("network create")))
    unreachable = `another test made the ${CLUSTER_NETWORK_NAME} network meanwhile: no create to kill at`;
  // Likewise a numbered point past the run's last call: what the engine held (the network, an
  // image) changed between the calibration and this run, and it made fewer calls.
  if (typeof point.at === "number" && killedBy !== "SIGKILL" && calls.length < point.at)
    unreachable = `this run made ${calls.length} engine calls, the calibration more: what another test left or took changed the run`;
  const stateProblems = await checkStateAfterKill(stateDir, runtime, name);
  const tornByKill = (await readEventLines(stateDir)).invalid;
  lap("wait+state");
  // down-first: `down` must clear what the kill left; up-first: `up` must make the pod over it.
  let first: { down: CliResult; remains: string[] } | undefined;
  let again: CaseResult["up"];
  if (point.recovery === "down-first") {
    first = await downAndFindRemains(runtime, name, file, env);
    lap("down");
  } else {
    const up = await runCli(["up", file, ...upArgs], { env });
    lap("up");
    const podProblems =
      up.exitCode === 0
        ? await checkPodRuns(runtime, name, stateDir, up.stdout.includes("Created container: app"))
        : ["not up"];
    lap("check");
    again = { up, podProblems, ...(await downAndFindRemains(runtime, name, file, env)) };
    lap("down");
  }
  const log = await readEventLines(stateDir);
  return {
    name,
    result: {
      killedBy,
      ...(unreachable ? { unreachable } : {}),
      timings,
      ...(calls.find((c) => c.killed) ? { killedCall: calls.find((c) => c.killed)! } : {}),
      calls: calls.length,
      stillRunning,
      stateProblems,
      ...(first ? { down: first.down, remainsAfterDown: first.remains } : {}),
      ...(again ? { up: again } : {}),
      // The lock a dead writer was preparing (`.tmp`) stays for a while by design (state.md).
      stateLeftovers: (await listStateLeftovers(stateDir)).filter(
        (f) => !/^backoff\.json\.lock\.\d+-[0-9a-f]+\.tmp$/.test(f),
      ),
      eventLogBroken: log.invalid.filter((n) => !tornByKill.includes(n)),
    },
  };
}

/**
 * The calls of a whole `up` with the cluster network there and nothing else of podrun on the
 * engine: the calibration's, less those that made the network (`network inspect podrun` failed,
 * then `network ls`, `create`, `ls`, `inspect`) when it had to, and less the inspect of other
 * runs' containers that a listing before this run's first container gets when there are some.
 * Numbered points are drawn from these, so that each is reached whatever a case finds on the
 * engine (finding more, it makes more calls, and its points come that much earlier in the run).
 */
export function fewestCalls(calls: readonly Pick<EngineCall, "args">[]): number {
  let madeOne = false;
  let dropped = 0;
  calls.forEach((call, i) => {
    if (/^network (ls|create)\b/.test(call.args) || /^network inspect (?!podrun$)/.test(call.args)) dropped++;
    else if (/^(run|create|pod create) /.test(call.args)) madeOne = true;
    else if (!madeOne && /^(container )?inspect /.test(call.args) && /^ps -a -q\b/.test(calls[i - 1]?.args ?? ""))
      dropped++;
  });
  return calls.length - dropped;
}

/**
 * The suite for `runtime`: a calibration run counts the engine calls of a whole `up` and times
 * it, then the points are drawn (KILL_SEED): a share of the calls (`fraction`: a quarter on docker, an eighth on podman), always the first
 * and the last, a timed kill, a kill at a pull and one at the cluster network's create. The
 * network's case runs first and alone (it needs the network unused); the others two at a time.
 */
export async function runKillSuite(
  t: Test,
  runtime: RuntimeName,
  options: { fraction: number; timed: number; pull: boolean },
): Promise<void> {
  if (!(await requirePodEngine(t, runtime))) return;
  if (options.pull && !(await requireRegistry(t, "open"))) return;
  const testEnv = requireTestEnv(t);
  if (!testEnv || !(await requireImage(t, runtime, testEnv.images.serviceProxy ?? SERVICE_PROXY_IMAGE))) return;
  const root = await mkdtemp(join(tmpdir(), `podrun-kill-${runtime}-`));
  const names: string[] = [];
  t.teardown(async () => {
    for (const name of names) {
      await removeManagedContainers(runtime, { "io.kubernetes.pod.name": name });
      await removeManagedContainers(runtime, { [LABEL_SERVICE_NAME]: name });
      // By name too: what a kill left unlabelled.
      await runCommand(
        runtime,
        runtime === "podman" ? ["pod", "rm", "-f", "-t", "0", `default_${name}`] : ["rm", "-f", `default_${name}_POD`],
        { reject: false },
      );
      await runCommand(runtime, ["rm", "-f", proxyContainerName("default", name)], { reject: false });
      await runCommand(runtime, ["volume", "rm", "-f", `default_${name}_data`], { reject: false });
    }
    await rm(root, { recursive: true, force: true });
  });

  // Calibration: a whole `up`, counted, then `down`.
  const calibration = join(root, "calibration");
  await mkdir(calibration);
  const shim = (await writeKillShim(calibration, runtime))!;
  const name = uniqueName("kill-cal");
  names.push(name);
  const file = join(calibration, "pod.yaml");
  await writeFile(file, killTestPod(name));
  const env = { PODRUN_STATE_DIR: join(calibration, "state"), PODRUN_RUNTIME: runtime };
  const started = performance.now();
  const full = await runCli(["up", file], { env: { ...env, ...shim.envFor() } });
  const upMs = Math.round(performance.now() - started);
  if (full.exitCode !== 0) return void t.fail(`the uninterrupted up failed: ${full.stderr}`);
  await waitForEngineCalls(shim.callsDir);
  const recorded = await readEngineCalls(shim.callsDir);
  const calls = fewestCalls(recorded);
  await runCli(["down", file], { env });
  await resetEngineCalls(shim.callsDir);

  const points = drawKillPoints({
    seed: KILL_SEED,
    calls,
    count: Math.ceil(calls * options.fraction),
    timed: options.timed,
    upMs,
    pull: options.pull,
    network: true,
  });
  t.comment(
    `${runtime}: a whole up makes ${calls} engine calls, with the cluster network there and nothing else of podrun (${recorded.length} here) in ${upMs} ms; seed ${KILL_SEED} (from ${KILL_SEED_FROM}): ${points.length} kill points`,
  );
  // What each number is (concurrent calls may swap numbers from one run to the next).
  t.comment(`the calibration's calls: ${recorded.map((c) => `${c.index} ${c.args}`).join("; ")}`);
  const chosen = points
    .map((point, index) => ({ point, index }))
    .filter(({ index }) => KILL_ONLY === undefined || index === KILL_ONLY);

  // The network's case first and alone, then the others two at a time; the subtests take their results in order.
  const results = new Map<number, Promise<{ name: string; result: CaseResult }>>();
  const start = (item: { point: KillPoint; index: number }) => {
    const dir = join(root, `case-${item.index}`);
    const run = mkdir(dir).then(() => runCase(runtime, dir, item.point, testEnv.images.serviceProxyRemote));
    results.set(item.index, run);
    return run;
  };
  const alone = chosen.filter(({ point }) => point.at === "network-create");
  const pooled = chosen.filter(({ point }) => point.at !== "network-create");
  let next = 0;
  const startNext = () => {
    const item = pooled[next++];
    if (item) start(item).then(startNext, startNext);
  };
  const first = alone.reduce<Promise<unknown>>(
    (previous, item) => previous.then(() => start(item)).catch(() => undefined),
    Promise.resolve(),
  );
  void first.then(() => {
    startNext();
    startNext();
  });

  for (const { point, index } of [...alone, ...pooled]) {
    await t.test(
      `${runtime}: case ${index}: SIGKILL ${describeKillPoint(point)}, then ${point.recovery === "down-first" ? "down" : "up, down"} (PODRUN_KILL_SEED=${KILL_SEED} PODRUN_KILL_CASE=${index})`,
      async (t) => {
        // The pool starts once the cases run alone have ended.
        while (!results.has(index)) await new Promise((resolve) => setTimeout(resolve, 50));
        const { name, result: r } = await results.get(index)!;
        names.push(name);
        t.comment(
          `pod ${name}; up ended by ${r.killedBy} at ${r.killedCall ? `call ${r.killedCall.index} (${r.killedCall.args})` : `its call ${r.calls}`}; ms: ${r.timings.join(", ")}`,
        );
        if (r.unreachable) t.comment(`not killed: ${r.unreachable}`);
        else if (typeof point.at !== "object") t.equal(r.killedBy, "SIGKILL", "up was killed");
        t.same(r.stillRunning, [], "the engine calls it left under way ended");
        t.same(r.stateProblems, [], "the state directory parses");
        if (r.down) {
          t.equal(r.down.exitCode, 0, `down: exit 0 ${r.down.stderr}`);
          t.same(r.remainsAfterDown, [], "down left nothing of the pod and its Services");
        }
        if (r.up) {
          t.equal(r.up.up.exitCode, 0, `up again: exit 0 ${r.up.up.stderr}`);
          t.same(r.up.podProblems, [], "the pod and its Service run whole");
          t.equal(r.up.down.exitCode, 0, `down after up: exit 0 ${r.up.down.stderr}`);
          t.same(r.up.remains, [], "nothing is left at the end");
        }
        t.same(r.stateLeftovers, [], "no lock or temp file left in the state directory");
        t.same(r.eventLogBroken, [], "the event log has no broken line but one torn by the kill");
      },
    );
  }
}
