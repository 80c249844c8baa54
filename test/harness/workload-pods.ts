import { openEventLog } from "../../lib/events/event-log.js";
import { createRecorder } from "../../lib/events/recorder.js";
import { createImageManager } from "../../lib/images/manager.js";
import { createImagePuller } from "../../lib/images/puller.js";
import { loadManifests } from "../../lib/manifest/load-manifest.js";
import { runPod, type PodOutcome } from "../../lib/pod/run-pod.js";
import type { ContainerRuntime } from "../../lib/runtime/types.js";
import { createMemoryBackoffStore } from "../../lib/state/backoff-store.js";

// The pods of a manifest's workloads, brought up as `up` brings up a Pod (run-pod.ts, with the
// event log of `stateDir`), for the tests of the commands that find them by workload, while `up`
// does not run workloads on this branch. Pods of a Deployment carry the owner label only this way:
// a manifest cannot give `Deployment/web` as a label value.

export async function upWorkloadPods(runtime: ContainerRuntime, files: readonly string[], options: { stateDir: string; infraImage?: string }): Promise<PodOutcome[]> {
  const manifest = await loadManifests(files, { recursive: false });
  const log = await openEventLog(options.stateDir);
  const recorder = createRecorder({ sinks: [], log });
  const images = createImageManager({ recorder, backoff: createMemoryBackoffStore(), puller: createImagePuller({ runtime, maxParallel: 1 }), clock: Date.now });
  const outcomes: PodOutcome[] = [];
  try {
    for (const workload of manifest.files.flatMap((file) => file.workloads)) {
      for (const pod of workload.pods) {
        outcomes.push(
          await runPod(
            { runtime, recorder, images },
            { pod, source: manifest.source, objects: manifest, infraImage: options.infraImage ?? "registry.k8s.io/pause:3.10", stateDir: options.stateDir, publishAll: false, replace: false, keepOnFailure: false, dryRun: false },
          ),
        );
      }
    }
  } finally {
    await recorder.flush();
    await log.close();
  }
  return outcomes;
}
