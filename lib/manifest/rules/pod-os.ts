import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { asObject } from "./raw.js";

const VALID_OS = ["linux", "windows"] as const;

/**
 * spec.os.name: the API server's validOS check (pkg/apis/core/validation ValidatePodSpec), then
 * podrun's own: the engines here run Linux containers, so a windows pod is refused before anything
 * is created, as a Linux node's kubelet refuses it at admission (PodOSNotSupported).
 */
export function validatePodOS(spec: Record<string, unknown>, report: Reporter): void {
  const name = asObject(spec.os)?.name;
  if (typeof name !== "string") return;
  const path = FieldPath.root().child("spec").child("os").child("name");
  if (!(VALID_OS as readonly string[]).includes(name))
    report({ type: "Unsupported", path, value: name, supported: VALID_OS });
  else if (name === "windows")
    report({
      type: "Forbidden",
      path,
      detail: "podrun runs Linux containers: a windows pod cannot run on this machine",
    });
}
