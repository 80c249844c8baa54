import { stat } from "node:fs/promises";
import { UsageError } from "../errors.js";
import { ACCEPTED_TYPES, parseResourceRef, resourceKindOf, type ResourceRef } from "../kinds/workload-ref.js";

// `podrun down deploy/web`: a `TYPE/NAME` argument read. The workload's pods are found by
// apply/down-workloads.ts, and a workload with none left is worded by output/down-lines.ts.

/**
 * `TYPE/NAME` when `arg` is one, else undefined (a manifest path, `-`, or a pod's name). An
 * existing file or directory of that path is a manifest, whatever it looks like; a path that is
 * neither a file nor a known type is a UsageError saying both.
 */
export async function readResourceArgument(arg: string): Promise<ResourceRef | undefined> {
  if (!/^[A-Za-z][A-Za-z.]*\/[^/]+$/.test(arg) || /\.(?:ya?ml|json)$/i.test(arg)) return undefined;
  // Not on disk: read as TYPE/NAME; a file of that name is read as a file, as kubectl does.
  if ((await stat(arg).catch(() => undefined)) !== undefined) return undefined;
  const type = arg.slice(0, arg.indexOf("/"));
  if (!resourceKindOf(type))
    throw new UsageError(
      `"${arg}" is no file or directory, and "${type}" is not a type podrun down takes: ${ACCEPTED_TYPES}`,
    );
  return parseResourceRef(arg, "down");
}
