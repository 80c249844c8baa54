import { ExitCode, ExitError } from "../errors.js";
import { formatTable } from "../output/table.js";
import { groupPods } from "../pod/status/find-pods.js";
import { LABEL_CLAIM } from "../pod/volumes/claim-volumes.js";
import {
  LABEL_MANAGED,
  LABEL_POD_NAMESPACE,
  type ContainerRuntime,
  type ContainerState,
  type VolumeInfo,
} from "../runtime/types.js";

// `podrun ps --volumes`: the engine volumes podrun keeps for PersistentVolumeClaims (claim-volumes.ts),
// which outlive every pod: which claim each is, and which pods mount it now, as `kubectl describe
// pvc` says under "Used By". Read from the engine, as `ps` reads pods: one volume listing and one
// container listing.

/** One claim's volume, as `--json` prints it (an array of these). */
export interface ClaimVolumeRow {
  persistentVolumeClaim: string;
  namespace: string;
  volume: string;
  /** The pods whose containers mount the volume (running or not), by name, sorted. */
  usedBy: string[];
}

export async function listClaimVolumes(
  runtime: ContainerRuntime,
  options: {
    namespace?: string;
    names: readonly string[];
    json: boolean;
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
  },
): Promise<void> {
  const { stdout, stderr } = options;
  const labels: Record<string, string> = {
    [LABEL_MANAGED]: "true",
    ...(options.namespace !== undefined ? { [LABEL_POD_NAMESPACE]: options.namespace } : {}),
  };
  const [volumes, containers] = await Promise.all([runtime.listVolumes(labels), runtime.listContainers(labels)]);
  const rows = claimVolumeRows(volumes, containers).filter(
    (row) => options.names.length === 0 || options.names.includes(row.persistentVolumeClaim),
  );
  const missing = options.names.filter((name) => !rows.some((row) => row.persistentVolumeClaim === name));
  if (options.json) stdout.write(`${JSON.stringify(rows, null, 4)}\n`);
  else if (rows.length > 0)
    stdout.write(`${formatClaimTable(rows, { namespaceColumn: options.namespace === undefined }).join("\n")}\n`);
  else if (missing.length === 0)
    stderr.write(
      options.namespace === undefined
        ? "No resources found\n"
        : `No resources found in ${options.namespace} namespace.\n`,
    );
  for (const name of missing)
    stderr.write(`Error from server (NotFound): persistentvolumeclaims "${name}" not found\n`);
  if (missing.length > 0) throw new ExitError(ExitCode.Failed);
}

/** The claims' volumes among `volumes` (pure), each with the pods of `containers` that mount it; sorted by namespace and claim. */
export function claimVolumeRows(
  volumes: readonly VolumeInfo[],
  containers: readonly ContainerState[],
): ClaimVolumeRow[] {
  const pods = groupPods(containers);
  return volumes
    .filter((volume) => volume.labels[LABEL_CLAIM] !== undefined && volume.labels[LABEL_POD_NAMESPACE] !== undefined)
    .map((volume) => ({
      persistentVolumeClaim: volume.labels[LABEL_CLAIM]!,
      namespace: volume.labels[LABEL_POD_NAMESPACE]!,
      volume: volume.name,
      usedBy: pods
        .filter((pod) =>
          [...(pod.infra ? [pod.infra] : []), ...pod.initContainers, ...pod.appContainers].some((state) =>
            state.volumes?.includes(volume.name),
          ),
        )
        .map((pod) => pod.name)
        .sort(),
    }))
    .sort((a, b) =>
      a.namespace === b.namespace
        ? compare(a.persistentVolumeClaim, b.persistentVolumeClaim)
        : compare(a.namespace, b.namespace),
    );
}

/** The table's lines, the header first: NAME (the claim), VOLUME (the engine's), USED BY. */
export function formatClaimTable(rows: readonly ClaimVolumeRow[], options: { namespaceColumn: boolean }): string[] {
  const header = [...(options.namespaceColumn ? ["NAMESPACE"] : []), "NAME", "VOLUME", "USED BY"];
  const cells = rows.map((row) => [
    ...(options.namespaceColumn ? [row.namespace] : []),
    row.persistentVolumeClaim,
    row.volume,
    row.usedBy.length > 0 ? row.usedBy.join(",") : "<none>",
  ]);
  return formatTable([header, ...cells]);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
