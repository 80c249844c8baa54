import type { Pod } from "kubernetes-types/core/v1.js";
import { ExitCode, ExitError, ManifestError } from "../errors.js";
import { loadManifests, type Manifest, type ManifestFile } from "../manifest/load-manifest.js";
import { configureColor } from "../output/color.js";
import { plural } from "../output/plural.js";

export interface ValidateOptions {
  /** Manifest files, directories, and `-` for standard input. */
  files: readonly string[];
  /** Read the subdirectories of a directory too (-R). */
  recursive?: boolean;
  json: boolean;
  /** Where summaries (or JSON) go, and where errors and warnings go. */
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

/**
 * Checks the files as one set, as one `kubectl apply -f a -f b` sends them: a Pod's references
 * resolve against the ConfigMaps and Secrets of every file. Reports every error of every file and
 * exits 2 if any; else one summary line per pod (or per file without a pod), or one JSON List.
 */
export async function validate(options: ValidateOptions): Promise<void> {
  const { stdout = process.stdout, stderr = process.stderr } = options;
  const color = configureColor();
  let manifest: Manifest;
  try {
    manifest = await loadManifests(options.files, { recursive: options.recursive === true });
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    for (const line of error.lines) stderr.write(`${color.red(line)}\n`);
    throw new ExitError(ExitCode.Usage);
  }
  for (const warning of manifest.warnings) stderr.write(`${color.yellow(warning)}\n`);
  if (options.json) {
    const items = manifest.files.flatMap((file) => [
      ...file.configMaps,
      ...file.secrets.map(redactSecret),
      ...(file.persistentVolumeClaims ?? []),
      ...file.pods,
      ...file.workloads.map((w) => w.object),
    ]);
    stdout.write(`${JSON.stringify({ apiVersion: "v1", kind: "List", items }, null, 2)}\n`);
    return;
  }
  for (const file of manifest.files)
    for (const line of summarize(file)) stdout.write(`${line}: ${color.green("valid")}\n`);
}

/** `pod.yaml: Pod web (2 containers, 1 init container)`, one line per pod. */
export function summarize(manifest: ManifestFile): string[] {
  const others = [
    count(manifest.configMaps.length, "ConfigMap"),
    count(manifest.secrets.length, "Secret"),
    count(manifest.persistentVolumeClaims?.length ?? 0, "PersistentVolumeClaim"),
  ].filter(Boolean);
  const workloads = (manifest.workloads ?? []).map(
    (w) =>
      `${manifest.source}: ${w.kind} ${w.name} (${plural(w.replicas, w.kind === "Job" ? "parallel pod" : w.kind === "DaemonSet" ? "pod" : "replica")}, ${describePod(w.pods[0] ?? { spec: { containers: [] } })})`,
  );
  if (manifest.pods.length === 0 && workloads.length === 0)
    return [`${manifest.source}: no Pod${others.length ? ` (${others.join(", ")})` : ""}`];
  return [
    ...manifest.pods.map((pod) => `${manifest.source}: Pod ${pod.metadata!.name} (${describePod(pod)})`),
    ...workloads,
  ];
}

function describePod(pod: Pod): string {
  const parts = [count(pod.spec!.containers.length, "container")];
  const init = pod.spec!.initContainers?.length ?? 0;
  if (init > 0) parts.push(count(init, "init container"));
  return parts.join(", ");
}

function count(n: number, noun: string): string {
  return n === 0 ? "" : plural(n, noun);
}

// Secret values never reach an output stream: CI logs are read by many.
function redactSecret<T extends { data?: Record<string, string>; stringData?: Record<string, string> }>(secret: T): T {
  const redact = (map?: Record<string, string>) =>
    map && Object.fromEntries(Object.keys(map).map((key) => [key, "<redacted>"]));
  return {
    ...secret,
    ...(secret.data && { data: redact(secret.data) }),
    ...(secret.stringData && { stringData: redact(secret.stringData) }),
  };
}
