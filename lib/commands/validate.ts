import type { Pod } from "kubernetes-types/core/v1.js";
import { ExitCode, ExitError, ManifestError } from "../errors.js";
import { loadManifest, type Manifest } from "../manifest/load-manifest.js";
import { configureColor } from "../output/color.js";
import { plural } from "../output/plural.js";

export interface ValidateOptions {
  files: readonly string[];
  json: boolean;
  /** Where summaries (or JSON) go, and where errors and warnings go. */
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

/**
 * Checks each file on its own (references must resolve within the file, as with one
 * `kubectl apply -f`), reports every error of every file, and exits 2 if any file is invalid.
 */
export async function validate(options: ValidateOptions): Promise<void> {
  const { stdout = process.stdout, stderr = process.stderr } = options;
  const color = configureColor();
  const valid: Manifest[] = [];
  let failed = false;
  for (const file of options.files) {
    try {
      const manifest = await loadManifest(file);
      for (const warning of manifest.warnings) stderr.write(`${color.yellow(warning)}\n`);
      if (!options.json) for (const line of summarize(manifest)) stdout.write(`${line}: ${color.green("valid")}\n`);
      valid.push(manifest);
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      failed = true;
      for (const line of error.lines) stderr.write(`${color.red(line)}\n`);
    }
  }
  if (options.json && !failed) {
    const items = valid.flatMap((m) => [...m.configMaps, ...m.secrets.map(redactSecret), ...m.pods]);
    stdout.write(`${JSON.stringify({ apiVersion: "v1", kind: "List", items }, null, 2)}\n`);
  }
  if (failed) throw new ExitError(ExitCode.Usage);
}

/** `pod.yaml: Pod web (2 containers, 1 init container)`, one line per pod. */
export function summarize(manifest: Manifest): string[] {
  const others = [count(manifest.configMaps.length, "ConfigMap"), count(manifest.secrets.length, "Secret")].filter(Boolean);
  if (manifest.pods.length === 0) return [`${manifest.source}: no Pod${others.length ? ` (${others.join(", ")})` : ""}`];
  return manifest.pods.map((pod) => `${manifest.source}: Pod ${pod.metadata!.name} (${describePod(pod)})`);
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
  return { ...secret, ...(secret.data && { data: redact(secret.data) }), ...(secret.stringData && { stringData: redact(secret.stringData) }) };
}
