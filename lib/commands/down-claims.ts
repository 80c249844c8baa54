import type { ChalkInstance } from "chalk";
import { formatErrorLine } from "../output/error-line.js";
import { removeClaimVolumes } from "../pod/volumes/claim-volumes.js";
import type { ContainerRuntime } from "../runtime/types.js";

// `podrun down --volumes`: after the pods, the engine volumes of the PersistentVolumeClaims, as
// `kubectl delete -f` deletes the claims of its files and the reclaim policy Delete then removes
// their volumes. With --all, every claim's volume podrun made (of -n's namespace when given).

/** A claim of the manifests given to `down`. */
export interface Claim {
  name: string;
  namespace: string;
}

/** One line of `--json` output per claim volume. */
export interface DownClaimResult {
  persistentVolumeClaim: string;
  namespace: string;
  volume: string;
  status: "Deleted" | "Failed";
  message?: string;
}

/** Removes the claims' volumes and prints a line for each; false when one could not be removed. */
export async function removeClaimsOf(
  runtime: ContainerRuntime,
  options: {
    claims: readonly Claim[];
    all: boolean;
    namespace?: string;
    json: boolean;
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
    color: ChalkInstance;
  },
): Promise<boolean> {
  const { stdout, stderr, color } = options;
  if (!options.all && options.claims.length === 0) return true;
  const { removed, failures } = await removeClaimVolumes(
    runtime,
    options.all ? { all: true, namespace: options.namespace } : { claims: options.claims },
  );
  const describe = (volume: string) => {
    const [namespace = "", ...rest] = volume.split("_");
    return { namespace, claim: rest.join("_") };
  };
  const label = (volume: string) => {
    const { namespace, claim } = describe(volume);
    return namespace === "default"
      ? `persistentvolumeclaim/${claim}`
      : `persistentvolumeclaim/${claim} (namespace ${namespace})`;
  };
  for (const volume of removed) {
    if (options.json) stdout.write(`${JSON.stringify(toResult(volume, "Deleted"))}\n`);
    else stdout.write(`${color.green(`${label(volume)} deleted (volume ${volume})`)}\n`);
  }
  for (const failure of failures) {
    if (options.json)
      stdout.write(`${JSON.stringify({ ...toResult(failure.volume, "Failed"), message: failure.message })}\n`);
    else
      stderr.write(
        `${color.red(formatErrorLine({ reason: "VolumeInUse", message: `volume ${failure.volume}: could not remove it: ${failure.message}` }, label(failure.volume)))}\n`,
      );
  }
  return failures.length === 0;

  function toResult(volume: string, status: DownClaimResult["status"]): DownClaimResult {
    const { namespace, claim } = describe(volume);
    return { persistentVolumeClaim: claim, namespace, volume, status };
  }
}
