import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import {
  EngineError,
  ExitCode,
  ExitError,
  ManifestError,
  PodrunError,
  StateAccessError,
  UsageError,
} from "./errors.js";
import { formatErrorLine } from "./output/error-line.js";
import type { ClearBackoffOptions, ListBackoffOptions } from "./commands/backoff.js";
import type { EventsOptions } from "./commands/events.js";
import type { LogsOptions } from "./commands/logs.js";
import type { PsOptions } from "./commands/ps.js";
import type { GetCommandOptions } from "./commands/get.js";
import type { UpOptions } from "./commands/up.js";
import type { DownOptions } from "./commands/down.js";
import type { RuntimeName } from "./runtime/detect.js";
import type { CommandShape } from "./commands/completion.js";
import { podrunVersion } from "./manifest/kubernetes-version.js";

// This module only declares the commands: each action lazy-imports the one module that does the
// work, so `podrun --version` loads commander alone. Errors become exit codes here and nowhere else.

const EXAMPLES = `
Examples:
  $ podrun up pod.yaml                       pull, create and start the pod's containers
  $ podrun up cm.yaml pod.yaml               a Pod and the ConfigMap it uses, in two files
  $ podrun up k8s/                           every *.yaml, *.yml, *.json of a directory (-R: and below)
  $ podrun up --runtime podman pod.yaml      use podman even if docker answers
  $ podrun up --dry-run pod.yaml             print the engine commands, run none
  $ podrun up --wait --timeout 90s pod.yaml  return once every container is Ready (probes), else exit 1
  $ podrun up --json pod.yaml > events.ndjson
  $ podrun events web --type Warning         what went wrong with pod web, kubectl-style
  $ podrun backoff clear --all               retry pulls at once after fixing a registry
  $ podrun down pod.yaml                     preStop hooks, stop, remove containers and emptyDir volumes
  $ podrun down -f k8s/                      the pods of every manifest of a directory
  $ podrun ps -o wide                        the pods, like kubectl get pods: READY, STATUS, RESTARTS, AGE, IP
  $ podrun ps svc -o wide                    the Services, like kubectl get svc: CLUSTER-IP, PORT(S), ENDPOINTS
  $ podrun logs web -c app -f                follow one container's output, like kubectl logs
  $ podrun exec deploy/db -- psql -c 'select 1'  run a command in a pod's container; its exit code is podrun's
  $ podrun wait --for=condition=Ready pod -l app=api   wait for readiness (probes), like kubectl wait
  $ podrun logs deploy/web                   a workload's pods (deploy, rs, sts, ds, job): also ps, events, down
  $ podrun validate pod.yaml                 check a manifest as kubectl --validate=strict would
  $ podrun validate examples/*.yaml          several files as one set: one summary line per pod
  $ podrun validate --json pod.yaml          print the objects with the API server's defaults
  $ cat pod.yaml | podrun validate -         read the manifest from standard input

Exit codes: 0 ok, 1 the pod or an operation on it failed, 2 usage or manifest error, 130 interrupted.
Environment: NO_COLOR, FORCE_COLOR; PODRUN_RUNTIME (docker|podman|nerdctl); PODRUN_INFRA_IMAGE;
  PODRUN_RUNTIME_REQUEST_TIMEOUT (as --runtime-request-timeout); REGISTRY_AUTH_FILE (up: as --authfile);
  PODRUN_STATE_DIR, else XDG_STATE_HOME/podrun, else ~/.local/state/podrun (back-off, event log).`;

// Option values are parsed here, one function per kind, as commander reads them (a bad value is
// exit 2 before anything runs). Durations are read by parseDurationOption (events/parse-duration.ts)
// in the command's own module, loaded only when the command runs.

// Numbers are never cast silently: "--parallel-pulls 2x" is a usage error, not 2.
const parsePositiveInteger = (value: string): number => {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError("expected a positive integer");
  return Number(value);
};

// A number of seconds, 0 included (`--grace-period 0`: kill at once).
const parseSeconds = (value: string): number => {
  if (!/^(?:0|[1-9]\d*)$/.test(value)) throw new InvalidArgumentError("expected a whole number of seconds");
  return Number(value);
};

// kubectl's --tail: a line count, or -1 for all of them (then undefined: no limit).
const parseTail = (value: string): number | undefined => {
  if (!/^(?:-1|0|[1-9]\d*)$/.test(value)) throw new InvalidArgumentError("expected a number of lines (or -1 for all)");
  return value === "-1" ? undefined : Number(value);
};

// -f may be repeated, as kubectl's: each one adds a file, a directory or -.
const collectFilename = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

// The engines of runtime/detect.ts, listed here so that building the program loads no engine code.
const RUNTIME_CHOICES = ["docker", "podman", "nerdctl"] as const satisfies readonly RuntimeName[];
const runtimeOption = () =>
  new Option("--runtime <name>", "container engine (default: $PODRUN_RUNTIME, else the first that answers)").choices(
    RUNTIME_CHOICES,
  );
// As the kubelet's flag: an engine command that does not answer in time fails its step (pulls, waits and execs excepted).
const requestTimeoutOption = () =>
  new Option(
    "--runtime-request-timeout <duration>",
    "how long each engine command may take (default: $PODRUN_RUNTIME_REQUEST_TIMEOUT, else 2m)",
  );

// What commander gives each command's action, typed once here. A command whose options are
// named as its flags (events, ps, logs, backoff) takes them as they are, through FlagsOf: an
// option added to the command's options interface then needs one .option() line below, no more.

/** Options that callers of a command give and the command line never does. */
type CallerOnly = "createRuntime" | "env" | "stdout" | "stderr" | "now" | "signal";
/** A command's options as flags, each one absent unless given; `NotFlags` come from arguments or are mapped. */
type FlagsOf<T, NotFlags extends keyof T = never> = { [K in Exclude<keyof T, CallerOnly | NotFlags>]?: T[K] };

/** -f, -R, -k and --image, for the commands that read manifests. */
interface ManifestFlags {
  filename?: string[];
  recursive?: true;
  kustomize?: string;
  image?: string[];
}

/** The manifests of a command: its FILE arguments, then those of -f, in the order given; none with -k. */
function manifestArguments(files: readonly string[], flags: ManifestFlags): string[] {
  const all = [...files, ...(flags.filename ?? [])];
  if (flags.kustomize !== undefined) {
    if (all.length > 0) throw new UsageError("only one of -f or -k can be specified");
    return [];
  }
  if (all.length === 0)
    throw new UsageError("no manifest given: name a FILE, a DIR, or - for standard input (or -f FILE, -k DIR)");
  return all;
}

const IMAGE_HELP =
  "put REF in place of the image NAME (its repository, whatever the tag) in every container, as kustomize's images: REF is a new name (the tag kept), NAME:TAG, NAME@DIGEST, :TAG or @DIGEST (may be repeated; also $PODRUN_IMAGES, a comma list)";

const KUSTOMIZE_HELP =
  "the kustomization directory DIR, as kubectl apply -k (rendered by kustomize build, else kubectl kustomize)";

interface ValidateFlags extends ManifestFlags {
  json?: true;
  strictRefs?: true;
}

interface UpFlags extends ManifestFlags {
  runtime?: RuntimeName;
  runtimeRequestTimeout?: string;
  infraImage?: string;
  serviceProxyImage?: string;
  address?: string;
  authfile?: string;
  publishAll?: true;
  parallelPulls?: number;
  imagePullProgressDeadline?: string;
  keepOnFailure?: true;
  dryRun?: true;
  json?: true;
  stateDir?: string;
  wait?: true;
  timeout?: string;
  rmOnInterrupt?: true;
  replace?: true;
  pullPolicy?: "IfNotPresent" | "Never";
}

/** `-o wide` stands for the command's `wide`. */
interface OutputFlag {
  output?: "wide";
}

type EventsFlags = FlagsOf<EventsOptions, "wide"> & OutputFlag;
type PsFlags = FlagsOf<PsOptions, "wide" | "names" | "json" | "nameOnly"> & {
  output?: "wide" | "json" | "name";
  json?: true;
};
type LogsFlags = FlagsOf<LogsOptions, "pod">;
type GetFlags = FlagsOf<GetCommandOptions, "type" | "names" | "noHeaders"> & { headers?: boolean };

interface DownFlags extends ManifestFlags {
  all?: true;
  selector?: string;
  volumes?: true;
  namespace?: string;
  gracePeriod?: number;
  timeout?: number;
  runtime?: RuntimeName;
  runtimeRequestTimeout?: string;
  json?: true;
  stateDir?: string;
}

type BackoffFlags = FlagsOf<ListBackoffOptions>;
type BackoffClearFlags = FlagsOf<ClearBackoffOptions, "keys">;

const SELECTOR_HELP =
  "only pods whose labels match this selector, as kubectl's -l: k=v, k!=v, 'k in (a,b)', 'k notin (a)', k, !k, joined by ','";
const FILES_HELP = "manifest files or directories (their *.yaml, *.yml, *.json), or - for standard input";
const FILENAME_HELP = "a manifest file, directory or - (may be repeated, as kubectl's -f)";
const RECURSIVE_HELP = "also read the subdirectories of the directories given";

export function buildProgram(): Command {
  const program = new Command("podrun")
    .description("Run a Kubernetes Pod manifest on this machine with docker, podman or nerdctl: no cluster needed.")
    .version(podrunVersion().line, "-V, --version", "print the podrun version")
    .helpOption("-h, --help", "show help")
    .addHelpText("after", EXAMPLES)
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(text) });
  // In the order `podrun --help` lists them.
  for (const declare of [
    declareValidate,
    declareUp,
    declareEvents,
    declarePs,
    declareGet,
    declareLogs,
    declareExec,
    declareWait,
    declareRollout,
    declareCp,
    declareDescribe,
    declarePortForward,
    declareDown,
    declareBackoff,
    declareCompletion,
    declareVersion,
  ])
    declare(program);
  return program;
}

// `podrun version`: podrun's, the engine's, and where the engine is (runtime/engine-location.ts).
function declareVersion(program: Command): void {
  program
    .command("version")
    .description(
      "print podrun's version, the engine's, and where the engine is: this host, a VM (Docker Desktop, Colima…) or another host",
    )
    .addOption(new Option("-o, --output <format>", "json: one object").choices(["json"]))
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .addHelpText(
      "after",
      "\nWhere the engine is decides what podrun can reach: a pod's address from this host (probes, hooks, port-forward),\nand this host's files (volumes). --version prints podrun's version alone.\n\nExamples:\n  $ podrun version\n  $ podrun version --runtime podman -o json",
    )
    .action(async (flags: { output?: "json"; runtime?: RuntimeName; runtimeRequestTimeout?: string }) => {
      const { version } = await import("./commands/version.js");
      await version({ ...flags, json: flags.output === "json" });
    });
}

// `podrun validate`: lib/manifest/ alone.
function declareValidate(program: Command): void {
  program
    .command("validate")
    .description("check manifests (Pod, ConfigMap, Secret) without touching any container engine")
    .argument("[file...]", FILES_HELP)
    .option("-f, --filename <file>", FILENAME_HELP, collectFilename)
    .option("-R, --recursive", RECURSIVE_HELP)
    .option("-k, --kustomize <dir>", KUSTOMIZE_HELP)
    .option("--json", "print the defaulted objects of every file as one JSON List instead of summary lines")
    .option("--image <NAME=REF>", IMAGE_HELP, collectFilename)
    .option(
      "--strict-refs",
      "fail (exit 2) on what a node's kubelet would fail on and an API server accepts: a ConfigMap, Secret or claim in none of the files, an image name it cannot parse, a hostPath that is not there (default: a Warning)",
    )
    .addHelpText(
      "after",
      "\nThe files are checked as one set, as one kubectl apply -f: a Pod may use the ConfigMaps and Secrets of any of them. Errors are what a v1.36 API server refuses; what only a kubelet finds is a Warning here (up refuses it), or an error with --strict-refs.\n\nExamples:\n  $ podrun validate pod.yaml\n  $ podrun validate cm.yaml pod.yaml\n  $ podrun validate -R k8s/\n  $ podrun validate --strict-refs -R k8s/\n  $ podrun validate --image ghcr.io/org/app=app:ci k8s/\n  $ podrun validate -k overlays/ci\n  $ podrun validate --json pod.yaml | jq '.items[0].spec'",
    )
    .action(async (files: string[], flags: ValidateFlags) => {
      const { validate } = await import("./commands/validate.js");
      await validate({
        files: manifestArguments(files, flags),
        recursive: flags.recursive === true,
        ...(flags.kustomize !== undefined ? { kustomize: flags.kustomize } : {}),
        json: flags.json === true,
        strictRefs: flags.strictRefs === true,
        images: flags.image ?? [],
      });
    });
}

// `podrun up`: its flags, read by toUpOptions.
function declareUp(program: Command): void {
  program
    .command("up")
    // kubectl's verb, so that a CI script's `kubectl apply -f k8s/` runs as it is.
    .alias("apply")
    .description("run pods: sandbox, init containers, then app containers (pull, create, start, postStart)")
    .argument("[file...]", FILES_HELP)
    .option("-f, --filename <file>", FILENAME_HELP, collectFilename)
    .option("-R, --recursive", RECURSIVE_HELP)
    .option("-k, --kustomize <dir>", KUSTOMIZE_HELP)
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option(
      "--infra-image <image>",
      "pod sandbox image (default: $PODRUN_INFRA_IMAGE, else registry.k8s.io/pause:3.10)",
    )
    .option(
      "--service-proxy-image <image>",
      "the image of a Service's proxy (default: $PODRUN_SERVICE_PROXY_IMAGE, else ghcr.io/podrun/service-proxy:0.1.0)",
    )
    .option(
      "--address <ip>",
      "where NodePort and LoadBalancer Services are published (default: $PODRUN_ADDRESS, else 127.0.0.1)",
    )
    .option(
      "--authfile <path>",
      "registry credentials (docker config.json or podman auth.json), tried after imagePullSecrets (default: $REGISTRY_AUTH_FILE)",
    )
    .option("--image <NAME=REF>", IMAGE_HELP, collectFilename)
    .addOption(
      new Option(
        "--pull-policy <policy>",
        "the pull policy of every container of the run, in place of its imagePullPolicy (a Warning says a cluster would pull)",
      ).choices(["IfNotPresent", "Never"]),
    )
    .option("--publish-all", "also publish ports that have only a containerPort, on the same host port")
    .option(
      "--parallel-pulls <n>",
      "pull up to n images at once (default 3; 1: serialized, as the kubelet)",
      parsePositiveInteger,
    )
    .option(
      "--image-pull-progress-deadline <duration>",
      "cancel a pull that shows no progress for this long; 0: never (default: $PODRUN_IMAGE_PULL_PROGRESS_DEADLINE, else 5m)",
    )
    .option("--keep-on-failure", "keep what was created when the pod fails (default: remove it)")
    .option("--dry-run", "print the engine commands that would run, and run none")
    .option("--json", "print events as NDJSON core/v1 Event objects instead of lines")
    .option("--state-dir <dir>", "state directory (back-off file, event log)")
    .option(
      "--wait",
      "return only when every container is Ready: startup and readiness probes passed (exit 1 if not in time)",
    )
    .option(
      "--timeout <duration>",
      "with --wait: how long to wait for the readiness of every pod of the run (default 5m; e.g. 90s, 2m30s)",
    )
    .option("--rm-on-interrupt", "with --wait: Ctrl-C removes the pod (default: leave it running)")
    .option(
      "--replace",
      "recreate the pod even if it is running and matches the manifest (default: keep what is unchanged)",
    )
    .addHelpText(
      "after",
      "\nThe files are read as one set: a Pod may use the ConfigMaps and Secrets of any of them. Their pods go up together,\nas on a cluster: 4 start at a time, a StatefulSet's pods one after the other (OrderedReady), the Jobs beside\nthem; with --wait, all are waited for together within one --timeout. A pod that fails does not stop the others,\nand the exit code is then 1.\n\nExamples:\n  $ podrun up examples/web-sidecar.yaml\n  $ podrun up cm.yaml pod.yaml\n  $ podrun up -f k8s/ -f extra/pod.yaml\n  $ podrun up --wait examples/web-sidecar.yaml\n  $ podrun up --wait --timeout 90s --rm-on-interrupt pod.yaml\n  $ podrun up --replace pod.yaml\n  $ podrun up --runtime podman --parallel-pulls 3 pod.yaml\n  $ podrun up --authfile ~/.docker/config.json pod.yaml\n  $ podrun up --dry-run pod.yaml\n  $ podrun up -k overlays/ci --wait\n\nAn image built in the CI job, in place of the released one the manifests name:\n  $ docker build -t app:ci-$SHA . && podrun up --wait --image ghcr.io/org/app=app:ci-$SHA k8s/\n  $ podrun up --wait --image ghcr.io/org/app=:ci-$SHA k8s/        # only the tag\n  $ PODRUN_IMAGES=ghcr.io/org/app=app:ci,ghcr.io/org/worker=worker:ci podrun up --wait k8s/\n  $ podrun up --pull-policy IfNotPresent k8s/                       # use what is here, :latest too",
    )
    .action(async (files: string[], flags: UpFlags) => {
      const { up, parseWaitTimeout } = await import("./commands/up.js");
      await up(toUpOptions(files, flags, parseWaitTimeout));
    });
}

/** `up`'s flags as its options: booleans made explicit, --timeout read as a duration. */
function toUpOptions(files: string[], flags: UpFlags, parseWaitTimeout: (value: string) => number): UpOptions {
  return {
    files: manifestArguments(files, flags),
    recursive: flags.recursive === true,
    ...(flags.kustomize !== undefined ? { kustomize: flags.kustomize } : {}),
    runtime: flags.runtime,
    runtimeRequestTimeout: flags.runtimeRequestTimeout,
    infraImage: flags.infraImage,
    serviceProxyImage: flags.serviceProxyImage,
    address: flags.address,
    authFile: flags.authfile,
    publishAll: flags.publishAll === true,
    parallelPulls: flags.parallelPulls,
    imagePullProgressDeadline: flags.imagePullProgressDeadline,
    keepOnFailure: flags.keepOnFailure === true,
    dryRun: flags.dryRun === true,
    json: flags.json === true,
    stateDir: flags.stateDir,
    wait: flags.wait === true,
    timeoutMs: flags.timeout === undefined ? undefined : parseWaitTimeout(flags.timeout),
    rmOnInterrupt: flags.rmOnInterrupt === true,
    replace: flags.replace === true,
    images: flags.image ?? [],
    ...(flags.pullPolicy !== undefined && { pullPolicy: flags.pullPolicy }),
  };
}

// `podrun events`: the event log.
function declareEvents(program: Command): void {
  program
    .command("events")
    .description("list the events podrun recorded, like kubectl get events (repeats folded: 2m (x3 over 10m))")
    .argument("[pod]", "only this pod (same as --pod), or a workload and its pods: deploy/web, job/migrate…")
    .option("--pod <name>", "only events of this pod (or TYPE/NAME: a workload and its pods)")
    .option("-n, --namespace <ns>", "only this namespace")
    .option(
      "-l, --selector <query>",
      "only events of the pods whose labels match, as kubectl's -l (pods the engine has now; instead of a pod)",
    )
    .addOption(runtimeOption())
    .addOption(new Option("--type <type>", "only Normal or Warning events").choices(["Normal", "Warning"]))
    .option("--reason <reason>", "only events with this reason (e.g. BackOff)")
    .option("--since <duration>", "only events last seen within this duration (e.g. 10m, 1h, 90s)")
    .option("--limit <n>", "at most n rows (the most recent)", parsePositiveInteger)
    .option(
      "--retention <duration>",
      "hide events last seen longer ago; 0 or none: hide none (default: $PODRUN_EVENTS_RETENTION, else 72h)",
    )
    .addOption(
      new Option("-o, --output <format>", "wide adds SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME").choices(["wide"]),
    )
    .option("--json", "print the (folded) Event objects as NDJSON")
    .option(
      "-w, --watch",
      "after the list, follow new events as they are recorded, until Ctrl-C or SIGTERM (then exit 0)",
    )
    .option("--state-dir <dir>", "state directory (default: $PODRUN_STATE_DIR, else $XDG_STATE_HOME/podrun)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ podrun events\n  $ podrun events web --type Warning\n  $ podrun events -l app=api --type Warning\n  $ podrun events --reason BackOff --since 1h -o wide\n  $ podrun events -w --json",
    )
    .action(async (pod: string | undefined, flags: EventsFlags) => {
      const { events } = await import("./commands/events.js");
      await events({
        ...flags,
        pod: flags.pod ?? pod,
        wide: flags.output === "wide",
        json: flags.json === true,
        watch: flags.watch === true,
      });
    });
}

// `podrun ps`: the pods on the engine.
function declarePs(program: Command): void {
  program
    .command("ps")
    .description(
      "list the pods podrun runs, like kubectl get pods (read from the engine by label, never cached); ps svc: the Services",
    )
    .argument(
      "[pod...]",
      "only these pods, or a workload's: deploy/web, sts/db, job/migrate…; svc [NAME...] or svc/NAME: Services (with --volumes: these claims)",
    )
    .option("-n, --namespace <ns>", "only this namespace (default: default)")
    .option("-A, --all-namespaces", "pods of every namespace, with a NAMESPACE column")
    .option("-l, --selector <query>", SELECTOR_HELP)
    .option(
      "--field-selector <query>",
      "only pods whose fields match: metadata.name, metadata.namespace, status.phase, status.podIP (=, ==, !=; e.g. status.phase=Running)",
    )
    .addOption(
      new Option(
        "-o, --output <format>",
        "wide adds IP, CONTAINERS, IMAGES, CONTAINER IDS (and OWNER when a pod is a workload's; Services: SELECTOR, ENDPOINTS); json: as --json",
      ).choices(["wide", "json", "name"]),
    )
    .option(
      "--json",
      "print a kind: List of core/v1 Pods (metadata, status.phase, status.containerStatuses…) or Services",
    )
    .option("--volumes", "list the PersistentVolumeClaims' engine volumes instead: claim, volume, the pods using it")
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option("--state-dir <dir>", "state directory (default: $PODRUN_STATE_DIR, else $XDG_STATE_HOME/podrun)")
    .addHelpText(
      "after",
      "\nREADY counts running app containers and started sidecars: readiness probes are evaluated by `up --wait`, not by ps.\n\nExamples:\n  $ podrun ps\n  $ podrun ps -A -o wide\n  $ podrun ps --json | jq -r '.items[] | .metadata.name + \" \" + .status.phase'\n  $ podrun ps -l app=web,tier!=cache --field-selector status.phase=Running\n  $ podrun ps deploy/web -o wide\n  $ podrun ps svc -o wide\n  $ podrun ps svc/api -o json\n  $ podrun ps --volumes -A",
    )
    .action(async (names: string[], flags: PsFlags) => {
      const { ps } = await import("./commands/ps.js");
      await ps(toPsOptions(names, flags));
    });
}

/** `ps`'s (and `get`'s) flags as its options: `-o` read into wide, json or name. */
function toPsOptions(names: string[], flags: PsFlags): PsOptions {
  return {
    ...flags,
    names,
    allNamespaces: flags.allNamespaces === true,
    wide: flags.output === "wide",
    json: flags.json === true || flags.output === "json",
    nameOnly: flags.output === "name",
  };
}

// `podrun get`: kubectl's verb for listing; pods and Services are what `ps` lists, the workloads
// are made from their pods (commands/get.ts), so that a script's `kubectl get … -o jsonpath=…` runs as it is.
function declareGet(program: Command): void {
  program
    .command("get")
    .description("list pods, workloads, Services, claims or events, like kubectl get (read from the engine)")
    .argument(
      "<type>",
      "pods (po), deployments (deploy), replicasets (rs), statefulsets (sts), daemonsets (ds), jobs, services (svc), pvc, events (ev); or TYPE/NAME",
    )
    .argument("[name...]", "only these")
    .option("-n, --namespace <ns>", "only this namespace (default: default)")
    .option("-A, --all-namespaces", "every namespace, with a NAMESPACE column")
    .option("-l, --selector <query>", SELECTOR_HELP)
    .option("--field-selector <query>", "pods: metadata.name, metadata.namespace, status.phase, status.podIP")
    .option(
      "-o, --output <format>",
      "wide, json, yaml, name, jsonpath=TEMPLATE, jsonpath-as-json=TEMPLATE, jsonpath-file=FILE, custom-columns=SPEC, custom-columns-file=FILE",
    )
    .option("--no-headers", "custom-columns and the workloads' tables: leave out the header line")
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option("--state-dir <dir>", "state directory (default: $PODRUN_STATE_DIR, else $XDG_STATE_HOME/podrun)")
    .addHelpText(
      "after",
      "\nOne name (get pod web, get deploy/api) prints that object itself; otherwise a kind: List, as kubectl does.\n\nExamples:\n  $ podrun get pods -l app=api -o wide\n  $ podrun get pod web -o jsonpath='{.status.phase}'\n  $ podrun get pods -o jsonpath='{range .items[*]}{.metadata.name}{\"\\t\"}{.status.podIP}{\"\\n\"}{end}'\n  $ podrun get deploy\n  $ podrun get deploy/api -o yaml\n  $ podrun get jobs -o custom-columns=NAME:.metadata.name,DONE:.status.succeeded\n  $ podrun get svc api -o jsonpath='{.spec.clusterIP}'\n  $ podrun get events",
    )
    .action(async (type: string, names: string[], flags: GetFlags) => {
      const { runGet } = await import("./commands/get.js");
      await runGet({
        ...flags,
        type,
        names,
        allNamespaces: flags.allNamespaces === true,
        noHeaders: flags.headers === false,
      });
    });
}

// `podrun logs`.
function declareLogs(program: Command): void {
  program
    .command("logs")
    .description("print the logs of a pod's container, like kubectl logs (stdout and stderr of the container, merged)")
    .argument(
      "[pod]",
      "pod name, or a workload (deploy/web, job/migrate…): each of its pods, lines prefixed [pod/NAME/CONTAINER]",
    )
    .option(
      "-l, --selector <query>",
      `${SELECTOR_HELP.replace("only pods", "the pods")} (instead of a pod; --tail defaults to 10)`,
    )
    .option(
      "--max-log-requests <n>",
      "with -l and -f: at most n containers followed at once (default 5)",
      parsePositiveInteger,
    )
    .option("-c, --container <name>", "the container (an app or an init container); needed when the pod has several")
    .option("-f, --follow", "stream new lines until the container stops; Ctrl-C ends it (exit 0)")
    .option("--tail <n>", "only the last n lines of each container (-1: all)", parseTail)
    .option("--timestamps", "start each line with the time the engine received it (RFC 3339)")
    .option("--since <duration>", "only lines newer than this duration (e.g. 90s, 5m, 1h30m)")
    .option(
      "--all-containers",
      "every container of the pod, init containers first (with -f: at once, each line prefixed)",
    )
    .option("--prefix", "start each line with [pod/NAME/CONTAINER]")
    .option("-n, --namespace <ns>", "the pod's namespace (default: default)")
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option(
      "--state-dir <dir>",
      "state directory: the pods' records (default: $PODRUN_STATE_DIR, else $XDG_STATE_HOME/podrun)",
    )
    .addHelpText(
      "after",
      "\nExamples:\n  $ podrun logs web\n  $ podrun logs web -c sidecar --tail 20 --timestamps\n  $ podrun logs web -f --since 5m\n  $ podrun logs web --all-containers --prefix\n  $ podrun logs deploy/web -f --tail 10\n  $ podrun logs -l app=api --prefix --all-containers",
    )
    .action(async (pod: string | undefined, flags: LogsFlags) => {
      const { logs } = await import("./commands/logs.js");
      await logs({
        ...flags,
        pod,
        follow: flags.follow === true,
        timestamps: flags.timestamps === true,
        allContainers: flags.allContainers === true,
        prefix: flags.prefix === true,
      });
    });
}

interface ExecFlags {
  container?: string;
  stdin?: true;
  tty?: true;
  selector?: string;
  namespace?: string;
  runtime?: RuntimeName;
  runtimeRequestTimeout?: string;
  stateDir?: string;
}

// `podrun exec`: its arguments read as kubectl's (the command after --).
function declareExec(program: Command): void {
  program
    .command("exec")
    .description("run a command in a running container of a pod, like kubectl exec: its output, its exit code")
    .argument("[pod]", "pod name, a workload (deploy/web, sts/db…) or svc/NAME: its most active pod")
    .argument("[command...]", "the command and its arguments, after --")
    .option("-c, --container <name>", "the container (default: the pod's default-container annotation, else its first)")
    .option("-i, --stdin", "pass standard input to the command")
    .option("-t, --tty", "give the command a terminal (standard input must be one)")
    .option(
      "-l, --selector <query>",
      "the most active of the pods whose labels match, instead of a pod (then every argument is the command)",
    )
    .option("-n, --namespace <ns>", "the pod's namespace (default: default)")
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option("--state-dir <dir>", "state directory (the pod's record: its default container)")
    .addHelpText(
      "after",
      "\nThe exit code is the command's (with kubectl's line \"command terminated with exit code N\" on stderr).\n\nExamples:\n  $ podrun exec web -- cat /etc/hostname\n  $ podrun exec deploy/db -c postgres -- psql -c 'select 1'\n  $ echo 'select 1' | podrun exec -i sts/db -- psql\n  $ podrun exec -it web -- sh\n  $ podrun exec -l app=api -- wget -qO- localhost:8080/healthz",
    )
    .action(async (pod: string | undefined, command: string[], flags: ExecFlags) => {
      const { exec } = await import("./commands/exec.js");
      // With -l there is no pod argument: every argument is the command.
      const [target, words] =
        flags.selector !== undefined && pod !== undefined ? [undefined, [pod, ...command]] : [pod, command];
      await exec({
        ...flags,
        target,
        command: words,
        stdin: flags.stdin === true,
        tty: flags.tty === true,
      });
    });
}

interface WaitFlags {
  for?: string;
  selector?: string;
  all?: true;
  namespace?: string;
  timeout?: string;
  runtime?: RuntimeName;
  runtimeRequestTimeout?: string;
  stateDir?: string;
}

// `podrun wait`: kubectl's wait.
function declareWait(program: Command): void {
  program
    .command("wait")
    .description("wait until pods or workloads meet a condition, like kubectl wait (probes run by podrun itself)")
    .argument(
      "[target...]",
      "TYPE/NAME (pod/web, deploy/api, job/migrate), TYPE NAME..., a pod's name, or a TYPE with -l/--all",
    )
    .option(
      "--for <condition>",
      "delete, condition=NAME[=true|false] (pods: Ready, ContainersReady, Initialized, PodScheduled; deploy: Available; job: Complete, Failed), or jsonpath='{.status.phase}'=VALUE",
    )
    .option("-l, --selector <query>", "the pods whose labels match, as kubectl's -l")
    .option("--all", "every pod of the namespace")
    .option("-n, --namespace <ns>", "the namespace (default: default)")
    .option("--timeout <duration>", "how long to wait (default 30s; 0: look once; negative: a week)")
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option("--state-dir <dir>", "state directory (the pods' records: their probes; the event log)")
    .addHelpText(
      "after",
      "\nReady is decided by the pod's readiness probes, which this command runs itself (there is no kubelet): each target\nis waited for at once, within one --timeout. Exit 0 when every condition is met, 1 when one is not in time.\n\nExamples:\n  $ podrun wait --for=condition=Ready pod -l app=api --timeout=120s\n  $ podrun wait --for=condition=Available deploy/api\n  $ podrun wait --for=condition=Complete job/migrate --timeout 5m\n  $ podrun wait --for=jsonpath='{.status.phase}'=Running pod/web\n  $ podrun wait --for=delete pod/web --timeout 60s",
    )
    .action(async (args: string[], flags: WaitFlags) => {
      const { wait } = await import("./commands/wait.js");
      await wait({ ...flags, args, all: flags.all === true });
    });
}

interface RolloutFlags {
  timeout?: string;
  namespace?: string;
  runtime?: RuntimeName;
  runtimeRequestTimeout?: string;
  stateDir?: string;
}

// `podrun rollout status`.
function declareRollout(program: Command): void {
  const rollout = program.command("rollout").description("follow a workload's rollout, like kubectl rollout");
  rollout
    .command("status")
    .description(
      "wait until a Deployment, StatefulSet or DaemonSet has every pod Ready, printing kubectl's progress lines",
    )
    .argument("<target>", "deploy/NAME, sts/NAME or ds/NAME")
    .option("--timeout <duration>", "give up after this long, exit 1 (default 0: no limit)")
    .option("-n, --namespace <ns>", "the namespace (default: default)")
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option("--state-dir <dir>", "state directory (the pods' records: their probes; the event log)")
    .addHelpText(
      "after",
      "\nReady is decided by the pods' readiness probes, run by this command (there is no kubelet).\n\nExamples:\n  $ podrun rollout status deploy/api\n  $ podrun rollout status sts/db --timeout 2m",
    )
    .action(async (target: string, flags: RolloutFlags) => {
      const { rolloutStatus } = await import("./commands/rollout.js");
      await rolloutStatus({ ...flags, target });
    });
}

interface CpFlags {
  container?: string;
  namespace?: string;
  runtime?: RuntimeName;
  runtimeRequestTimeout?: string;
  stateDir?: string;
}

// `podrun cp`.
function declareCp(program: Command): void {
  program
    .command("cp")
    .description("copy files and directories to and from a pod's container, like kubectl cp")
    .argument("<src>", "[NAMESPACE/]POD:PATH or a local path")
    .argument("<dest>", "a local path or [NAMESPACE/]POD:PATH")
    .option("-c, --container <name>", "the container (default: the pod's default-container annotation, else its first)")
    .option("-n, --namespace <ns>", "the pod's namespace, unless given as NAMESPACE/POD (default: default)")
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option("--state-dir <dir>", "state directory (the pod's record: its default container)")
    .addHelpText(
      "after",
      "\nThe engine's own cp does the copy: no tar needed in the image, and a container that exited can be copied from.\n\nExamples:\n  $ podrun cp web:/var/log/app.log ./app.log\n  $ podrun cp ./fixtures db:/docker-entrypoint-initdb.d -c postgres\n  $ podrun cp ci/web:/tmp/report.xml report.xml",
    )
    .action(async (source: string, destination: string, flags: CpFlags) => {
      const { cp } = await import("./commands/cp.js");
      await cp({ ...flags, source, destination });
    });
}

interface DescribeFlags {
  selector?: string;
  namespace?: string;
  runtime?: RuntimeName;
  runtimeRequestTimeout?: string;
  stateDir?: string;
}

// `podrun describe`.
function declareDescribe(program: Command): void {
  program
    .command("describe")
    .description(
      "show a pod or a Service in detail, like kubectl describe: containers' state, last state, probes, env, mounts, events",
    )
    .argument(
      "[target...]",
      "pod names, pod/NAME, a workload (deploy/web: its pods), svc/NAME (or svc NAME…), or pod with -l",
    )
    .option("-l, --selector <query>", "the pods whose labels match, as kubectl's -l")
    .option("-n, --namespace <ns>", "the namespace (default: default)")
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option("--state-dir <dir>", "state directory (the pods' records, the event log)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ podrun describe web\n  $ podrun describe pod -l app=api\n  $ podrun describe deploy/api -n ci\n  $ podrun describe svc api",
    )
    .action(async (args: string[], flags: DescribeFlags) => {
      const { describe } = await import("./commands/describe.js");
      await describe({ ...flags, args });
    });
}

interface PortForwardFlags {
  address?: string;
  via?: "auto" | "direct" | "engine";
  namespace?: string;
  runtime?: RuntimeName;
  runtimeRequestTimeout?: string;
  stateDir?: string;
}

// `podrun port-forward`.
function declarePortForward(program: Command): void {
  program
    .command("port-forward")
    .description("forward local ports to a pod (or a Service's pod), like kubectl port-forward, until Ctrl-C")
    .argument("<target>", "pod name, a workload (deploy/web: its most active pod) or svc/NAME")
    .argument(
      "<port...>",
      "[LOCAL:]REMOTE (the same number for both when LOCAL is left out); :REMOTE picks a free local port",
    )
    .option("--address <addresses>", "where to listen, comma-separated (default: 127.0.0.1; localhost is 127.0.0.1)")
    .addOption(
      new Option(
        "--via <path>",
        "auto: to the pod's IP when the host reaches it; through podrun's relay where the engine is in a VM or remote; else exec of nc in the pod. direct; engine",
      ).choices(["auto", "direct", "engine"]),
    )
    .option("-n, --namespace <ns>", "the namespace (default: default)")
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option("--state-dir <dir>", "state directory (the pods' records: named ports; the Services' records)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ podrun port-forward web 8080:80\n  $ podrun port-forward svc/api :80            a free local port, printed\n  $ podrun port-forward deploy/db 5432 --address 127.0.0.1,::1\n  $ podrun port-forward web 8080:http --via engine",
    )
    .action(async (target: string, ports: string[], flags: PortForwardFlags) => {
      const { portForward } = await import("./commands/port-forward.js");
      await portForward({ ...flags, target, ports });
    });
}

// `podrun down`.
function declareDown(program: Command): void {
  program
    .command("down")
    // kubectl's verb, so that a CI script's `kubectl delete -f k8s/` runs as it is.
    .alias("delete")
    .description(
      "stop and remove pods: preStop hooks, stop within the grace period, remove containers, sandbox and emptyDir volumes",
    )
    .argument(
      "[target...]",
      "manifest files or directories (- for standard input), pod names, or workloads (deploy/web, job/migrate…)",
    )
    .option(
      "-f, --filename <file>",
      "a manifest file, directory or - whose pods go down (may be repeated)",
      collectFilename,
    )
    .option("-R, --recursive", RECURSIVE_HELP)
    .option("-k, --kustomize <dir>", KUSTOMIZE_HELP)
    .option(
      "--image <NAME=REF>",
      `${IMAGE_HELP}: the same as up's, so that a workload's pods are found`,
      collectFilename,
    )
    .option("--all", "every pod podrun runs on this engine (only those of -n, if given)")
    .option("-l, --selector <query>", `${SELECTOR_HELP.replace("only pods", "the pods")}, in the namespace of -n`)
    .option(
      "--volumes",
      "also remove the volumes of the manifests' PersistentVolumeClaims (with --all: of every claim)",
    )
    .option("-n, --namespace <ns>", "namespace of the pods named (default: default)")
    .option(
      "--grace-period <seconds>",
      "seconds between the stop signal and SIGKILL, instead of the pod's terminationGracePeriodSeconds (0: kill at once, no preStop)",
      parseSeconds,
    )
    .option("-t, --timeout <seconds>", "same as --grace-period", parseSeconds)
    .addOption(runtimeOption())
    .addOption(requestTimeoutOption())
    .option("--json", "print one JSON result per pod (NDJSON) instead of events and lines")
    .option("--state-dir <dir>", "state directory (event log)")
    .addHelpText(
      "after",
      "\nA pod that is not there is reported as not found, with exit 0: running down twice is fine.\n\nAn argument is a manifest when it is -, a file, a path with a / (k8s/), or a .yaml/.yml/.json name; TYPE/NAME that is no file\nis a workload (deploy/web: every pod of it); else a pod name.\n\nExamples:\n  $ podrun down examples/web-sidecar.yaml\n  $ podrun down cm.yaml pod.yaml\n  $ podrun down k8s/\n  $ podrun down -f k8s -R\n  $ podrun down web db -n ci\n  $ podrun down job/migrate\n  $ podrun down --image ghcr.io/org/app=app:ci k8s/   # as up was given it\n  $ podrun down -k overlays/ci\n  $ podrun down -l app=web -n ci\n  $ podrun down --all --grace-period 0\n  $ podrun down --json pod.yaml",
    )
    .action(async (targets: string[], flags: DownFlags) => {
      const { down } = await import("./commands/down.js");
      await down(toDownOptions(targets, flags));
    });
}

/** `down`'s flags as its options: -t is --grace-period under kubectl's other name. */
function toDownOptions(targets: string[], flags: DownFlags): DownOptions {
  if (flags.gracePeriod !== undefined && flags.timeout !== undefined && flags.gracePeriod !== flags.timeout) {
    throw new UsageError("--grace-period and --timeout are the same option: give one");
  }
  return {
    targets,
    filenames: flags.filename ?? [],
    recursive: flags.recursive === true,
    ...(flags.kustomize !== undefined ? { kustomize: flags.kustomize } : {}),
    all: flags.all === true,
    selector: flags.selector,
    volumes: flags.volumes === true,
    namespace: flags.namespace,
    gracePeriod: flags.gracePeriod ?? flags.timeout,
    runtime: flags.runtime,
    runtimeRequestTimeout: flags.runtimeRequestTimeout,
    json: flags.json === true,
    stateDir: flags.stateDir,
    images: flags.image ?? [],
  };
}

// `podrun backoff` and `podrun backoff clear`.
function declareBackoff(program: Command): void {
  const backoff = program
    .command("backoff")
    .description("list the image pull back-offs podrun remembers (key, next retry in, last error)")
    .option("--json", "print the entries as JSON")
    .option("--state-dir <dir>", "state directory (default: $PODRUN_STATE_DIR, else $XDG_STATE_HOME/podrun)")
    .addHelpText(
      "after",
      "\nExamples:\n  $ podrun backoff\n  $ podrun backoff clear default/web_busybox:1.36\n  $ podrun backoff clear --all",
    )
    .action(async (flags: BackoffFlags) => {
      const { listBackoff } = await import("./commands/backoff.js");
      await listBackoff({ ...flags, json: flags.json === true });
    });
  backoff
    .command("clear")
    .description("forget back-off entries, so that the next `podrun up` pulls at once (after fixing a registry)")
    .argument("[key...]", "entries to forget (as `podrun backoff` lists them)")
    .option("--all", "forget every entry")
    .option("--state-dir <dir>", "state directory")
    .action(async (keys: string[], flags: BackoffClearFlags) => {
      const { clearBackoff } = await import("./commands/backoff.js");
      // --state-dir may come before `clear`, as an option of `backoff`.
      await clearBackoff({
        ...flags,
        keys,
        all: flags.all === true,
        stateDir: flags.stateDir ?? backoff.opts<BackoffFlags>().stateDir,
      });
    });
}

// `podrun completion SHELL`: the script; it calls `podrun __complete WORD…` (main, below).
function declareCompletion(program: Command): void {
  program
    .command("completion")
    .description("print the shell completion script for bash, zsh or fish: commands, flags, pod and workload names")
    .argument("<shell>", "bash, zsh or fish")
    .addHelpText(
      "after",
      "\nExamples:\n  $ source <(podrun completion bash)          in ~/.bashrc\n  $ source <(podrun completion zsh)           in ~/.zshrc\n  $ podrun completion fish | source           in ~/.config/fish/config.fish",
    )
    .action(async (shell: string) => {
      const { completionScript } = await import("./commands/completion.js");
      process.stdout.write(completionScript(shell));
    });
}

/** The commands as completion sees them, read off their declarations. */
export function commandShapes(command: Command): CommandShape[] {
  return command.commands.map((sub) => ({
    name: sub.name(),
    aliases: sub.aliases(),
    flags: [...sub.options.flatMap((o) => [o.long, o.short]), "--help"].filter((f): f is string => !!f),
    subcommands: commandShapes(sub),
  }));
}

/** `podrun __complete WORD… CURRENT`: the candidates, one a line (the completion scripts' question). */
async function completeCommandLine(words: readonly string[]): Promise<void> {
  const { completeWords, namespaceOf, podNamesForCompletion } = await import("./commands/completion.js");
  const typed = words.slice(0, -1);
  const candidates = await completeWords(commandShapes(buildProgram()), typed, words.at(-1) ?? "", () =>
    podNamesForCompletion(namespaceOf(typed), process.env),
  );
  process.stdout.write(candidates.map((c) => `${c}\n`).join(""));
}

/** Runs the CLI and returns the exit code; never throws. */
export async function main(argv: readonly string[] = process.argv): Promise<number> {
  ignoreBrokenPipe(process.stdout);
  try {
    // Before commander: the words are the user's half-typed command line, not this command's.
    if (argv[2] === "__complete") return await completeCommandLine(argv.slice(3)).then(() => ExitCode.Ok);
    await buildProgram().parseAsync([...argv]);
    return ExitCode.Ok;
  } catch (error) {
    return exitCodeFor(error);
  }
}

// A reader that stops early (`podrun up --dry-run | head`) closes the pipe. What is left to print has
// no reader, but the command must still end as it would have: a pod half started is finished (or
// undone), and the exit code is the command's. So a broken pipe ends the printing, not the run
// (without a listener, Node throws the EPIPE with a stack trace).
let brokenPipeIgnored = false;
function ignoreBrokenPipe(stdout: NodeJS.WriteStream): void {
  if (brokenPipeIgnored) return;
  brokenPipeIgnored = true;
  stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // --help and --version end as "errors" under exitOverride, with their own exit code 0.
    return error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  }
  if (error instanceof ExitError) return error.code;
  if (error instanceof ManifestError) {
    for (const line of error.lines) process.stderr.write(`${line}\n`);
    return ExitCode.Usage;
  }
  if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n`);
    return ExitCode.Usage;
  }
  if (error instanceof PodrunError || error instanceof EngineError || error instanceof StateAccessError) {
    if (error instanceof PodrunError && error.details) process.stderr.write(`${error.details}\n`);
    process.stderr.write(`${formatErrorLine(error)}\n`);
    return ExitCode.Failed;
  }
  process.stderr.write(
    `Unexpected error. Please report it as a bug:\n${(error instanceof Error ? error.stack : undefined) ?? String(error)}\n`,
  );
  return ExitCode.Failed;
}
