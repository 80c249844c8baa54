// The pull decision (the kubelet's shouldPullImage, pkg/kubelet/images/image_manager.go), apart
// from any mechanism so it can be table-tested.

export type PullPolicy = "Always" | "IfNotPresent" | "Never";

/** Always pulls; IfNotPresent pulls only an absent image; Never never pulls. */
export function shouldPullImage(policy: PullPolicy, present: boolean): boolean {
  switch (policy) {
    case "Always":
      return true;
    case "IfNotPresent":
      return !present;
    case "Never":
      return false;
  }
}
