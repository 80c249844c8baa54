import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Pod } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../errors.js";
import { writeFileAtomic } from "../state/atomic-write.js";
import { describeFsError } from "../state/state-error.js";
import { podDirectory } from "./volumes/pod-dir.js";

// The pod as `up` ran it, kept in its pod directory as `pod.json`: the object the API server
// would hold (defaults applied, the run's UID), so that the verbs that need more than the engine
// knows read it back: exec (the default container, the containers' order), describe and wait
// (probes, ports, mounts, the env's sources). It holds what the manifest held and nothing more: a
// Secret's values are never in a Pod (only the names of the Secrets it reads), and the pod
// directory is the user's alone (0700, pod-dir.ts). A pod made by an older podrun has none:
// the readers then fall back on what the engine says.

export const POD_RECORD_FILE = "pod.json";

/**
 * Writes the pod's record into its directory (atomically: a reader sees the old or the new one).
 * A write that fails (a full disk) fails the pod's start, as its other files do.
 */
export async function writePodRecord(podDir: string, pod: Pod): Promise<void> {
  const file = join(podDir, POD_RECORD_FILE);
  try {
    await writeFileAtomic(file, `${JSON.stringify(pod)}\n`);
  } catch (error) {
    throw new PodrunError(
      "CreateContainerConfigError",
      `cannot write the pod's record ${file}: ${describeFsError(error)}`,
      {
        cause: error,
      },
    );
  }
}

/** The pod as `up` last ran it on this engine; undefined when there is no (readable) record. */
export async function readPodRecord(
  stateDir: string,
  engine: string,
  pod: { name: string; namespace: string },
): Promise<Pod | undefined> {
  const text = await readFile(join(podDirectory(stateDir, engine, pod), POD_RECORD_FILE), "utf8").catch(
    // No record (an older podrun, a hostNetwork pod made without a state directory): the engine's word alone.
    () => undefined,
  );
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as Pod;
    return parsed.kind === "Pod" && parsed.spec ? parsed : undefined;
  } catch {
    // A record cut short by a full disk is no record.
    return undefined;
  }
}
