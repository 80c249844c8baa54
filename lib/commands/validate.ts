import { ExitCode, ExitError, ManifestError } from "../errors.js";
import { loadManifests } from "../kinds/read-manifests.js";
import { parseImageOverrides } from "../manifest/image-overrides.js";
import { inRunOrder, kindEntry, KINDS } from "../kinds/table.js";
import type { KindTable } from "../kinds/types.js";
import type { Manifest, ManifestFile } from "../manifest/load-manifest.js";
import { configureColor } from "../output/color.js";
import { plural } from "../text/plural.js";

export interface ValidateOptions {
  /** Manifest files, directories, and `-` for standard input. */
  files: readonly string[];
  /** Read the subdirectories of a directory too (-R). */
  recursive?: boolean;
  /** `-k DIR`: the kustomization of DIR (lib/manifest/kustomize.ts). */
  kustomize?: string;
  json: boolean;
  /** `--strict-refs`: what only a kubelet finds (load-manifest.ts KubeletChecks) is an error, not a Warning. */
  strictRefs?: boolean;
  /** `--image NAME=REF` (and $PODRUN_IMAGES): the images put in place of those written. */
  images?: readonly string[];
  env?: NodeJS.ProcessEnv;
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
    manifest = await loadManifests(options.files, {
      recursive: options.recursive === true,
      kustomize: options.kustomize,
      kubeletChecks: options.strictRefs === true ? "error" : "warn",
      images: parseImageOverrides(options.images ?? [], (options.env ?? process.env)["PODRUN_IMAGES"]),
    });
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    for (const line of error.lines) stderr.write(`${color.red(line)}\n`);
    throw new ExitError(ExitCode.Usage);
  }
  for (const warning of manifest.warnings) stderr.write(`${color.yellow(warning)}\n`);
  if (options.json) {
    // Each file's objects in the table's order (ConfigMaps, Secrets, claims, Pods, workloads), as printable.
    const items = manifest.files.flatMap((file) =>
      inRunOrder(file.items).map((item) => kindEntry(KINDS, item.kind).printable?.(item.object) ?? item.object),
    );
    stdout.write(`${JSON.stringify({ apiVersion: "v1", kind: "List", items }, null, 2)}\n`);
    return;
  }
  for (const file of manifest.files)
    for (const line of summarize(file)) stdout.write(`${line}: ${color.green("valid")}\n`);
}

/** `pod.yaml: Pod web (2 containers, 1 init container)`, one line per object its kind describes. */
export function summarize(file: ManifestFile, table: KindTable = KINDS): string[] {
  const described = inRunOrder(file.items, table).flatMap((item) => {
    const describe = kindEntry(table, item.kind).describe;
    return describe ? [`${file.source}: ${describe(item)}`] : [];
  });
  if (described.length > 0) return described;
  const others = table.kinds
    .filter((entry) => !entry.describe)
    .map((entry) => count(file.items.filter((item) => item.kind === entry.kind).length, entry.kind))
    .filter(Boolean);
  return [`${file.source}: no Pod${others.length ? ` (${others.join(", ")})` : ""}`];
}

function count(n: number, noun: string): string {
  return n === 0 ? "" : plural(n, noun);
}
