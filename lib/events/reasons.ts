// The kubelet's event vocabulary (pkg/kubelet/events/event.go): reasons are the
// exact strings a cluster shows, so users can compare podrun's output with `kubectl events`.
// Several situations share one reason (`Failed` covers pull, create and start failures); the
// message tells them apart.

export const EventType = {
  Normal: "Normal",
  Warning: "Warning",
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

export const EventReason = {
  // Images (image_manager.go)
  Pulling: "Pulling",
  Pulled: "Pulled",
  Failed: "Failed",
  BackOff: "BackOff",
  InspectFailed: "InspectFailed",
  ErrImageNeverPull: "ErrImageNeverPull",
  // Containers (kuberuntime_container.go)
  Created: "Created",
  Started: "Started",
  Killing: "Killing",
  ExceededGracePeriod: "ExceededGracePeriod",
  FailedPostStartHook: "FailedPostStartHook",
  FailedPreStopHook: "FailedPreStopHook",
  // Probes
  Unhealthy: "Unhealthy",
  ProbeWarning: "ProbeWarning",
  // Sandbox and pod
  SandboxChanged: "SandboxChanged",
  FailedCreatePodSandBox: "FailedCreatePodSandBox",
  FailedPodSandBoxStatus: "FailedPodSandBoxStatus",
  FailedKillPod: "FailedKillPod",
  FailedSync: "FailedSync",
} as const;
export type EventReason = (typeof EventReason)[keyof typeof EventReason];
