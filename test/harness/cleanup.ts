// Teardown for tests that ran podrun against a real engine: removes whatever podrun labelled as
// its own, so a failed test leaves nothing running for the next one.
import type { RuntimeName } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";

export const MANAGED_LABEL = "io.podrun.managed=true";

/**
 * Force-removes every container (and, on podman, every pod) labelled io.podrun.managed=true,
 * optionally narrowed by more `key=value` labels. Resolves with the removed container IDs.
 * tap runs test files in parallel: narrow it to the test's own pod (for example with
 * `{"io.kubernetes.pod.name": name}`) unless nothing else can be running.
 */
export async function removeManagedContainers(
  runtime: RuntimeName,
  extraLabels: Record<string, string> = {},
): Promise<string[]> {
  const filters = [MANAGED_LABEL, ...Object.entries(extraLabels).map(([k, v]) => `${k}=${v}`)].flatMap((label) => [
    "--filter",
    `label=${label}`,
  ]);
  const ids = lines((await runCommand(runtime, ["ps", "-aq", "--no-trunc", ...filters])).stdout);
  // A container that vanished in between is fine: removal is the goal, not the exit code.
  // podman's rm -f waits out the stop timeout first (a `sleep` as PID 1 ignores SIGTERM): kill at once.
  const force = runtime === "podman" ? ["rm", "-f", "-t", "0"] : ["rm", "-f"];
  if (ids.length > 0) await runCommand(runtime, [...force, ...ids], { reject: false });
  if (runtime === "podman") {
    const pods = lines((await runCommand(runtime, ["pod", "ps", "-q", "--no-trunc", ...filters])).stdout);
    if (pods.length > 0) await runCommand(runtime, ["pod", "rm", "-f", "-t", "0", ...pods], { reject: false });
  }
  // The pod's emptyDir volumes, by its name alone: podman 4.3 ORs several label filters, and its
  // `volume rm -f` would also remove the containers of another test using a volume.
  const pod = extraLabels["io.kubernetes.pod.name"];
  if (pod !== undefined) {
    const volumes = lines(
      (await runCommand(runtime, ["volume", "ls", "-q", "--filter", `label=io.kubernetes.pod.name=${pod}`])).stdout,
    );
    if (volumes.length > 0) await runCommand(runtime, ["volume", "rm", ...volumes], { reject: false });
  }
  return ids;
}

function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}
