import type { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";

// File paths inside volumes and mounts (validateLocalDescendingPath and friends).

/** Go's path.IsAbs, as the API server uses (slash-separated, whatever the node's OS). */
function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

// filepath.ToSlash on the API server's Linux leaves `\` alone: `..\x` is one file name, not a step up.
function hasBacksteps(path: string): boolean {
  return path.split("/").includes("..");
}

/** Relative and without `..` elements: subPath, subPathExpr. */
export function checkLocalDescendingPath(report: Reporter, path: FieldPath, value: string): void {
  if (isAbsolute(value)) report({ type: "Invalid", path, value, detail: "must be a relative path" });
  if (hasBacksteps(value)) report({ type: "Invalid", path, value, detail: "must not contain '..'" });
}

/** Also not starting with `..` (`..data` is where the kubelet swaps projected files): items[].path. */
export function checkLocalNonReservedPath(report: Reporter, path: FieldPath, value: string): void {
  checkLocalDescendingPath(report, path, value);
  if (value.startsWith("..") && !value.startsWith("../"))
    report({ type: "Invalid", path, value, detail: "must not start with '..'" });
}

/** hostPath.path may be absolute but must not step out with `..`. */
export function checkNoBacksteps(report: Reporter, path: FieldPath, value: string): void {
  if (hasBacksteps(value)) report({ type: "Invalid", path, value, detail: "must not contain '..'" });
}
