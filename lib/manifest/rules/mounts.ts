import type { FieldPath } from "../field-path.js";
import type { PodContext } from "./context.js";
import { checkLocalDescendingPath } from "./paths.js";
import { asObject, asString, isBlank, listObjectItems, type RawObject } from "./raw.js";

/**
 * ValidateVolumeMounts. Errors under a mount carry its index (`volumeMounts[0].subPath`), where
 * the API server names some of them without it (`volumeMounts.subPath`): the index lets podrun
 * point at the line. mountPath is only required and unique there: any other form (relative, a
 * Windows path) is the node's business (the kubelet roots a relative one at `/`).
 */
export function validateVolumeMounts(ctx: PodContext, container: RawObject, containerPath: FieldPath): void {
  const mountPoints = new Set<string>();
  const privileged = asObject(container.securityContext)?.privileged === true;
  for (const [i, mount] of listObjectItems(container.volumeMounts)) {
    const path = containerPath.child("volumeMounts").index(i);
    const name = asString(mount.name);
    if (isBlank(mount.name)) ctx.report({ type: "Required", path: path.child("name") });
    else if (name !== undefined && !ctx.volumes.has(name))
      ctx.report({ type: "NotFound", path: path.child("name"), value: name });

    const mountPath = asString(mount.mountPath);
    if (isBlank(mount.mountPath)) ctx.report({ type: "Required", path: path.child("mountPath") });
    else if (mountPath !== undefined) {
      if (mountPoints.has(mountPath))
        ctx.report({ type: "Invalid", path: path.child("mountPath"), value: mountPath, detail: "must be unique" });
      mountPoints.add(mountPath);
    }

    // An image volume takes subPath and subPathExpr since Kubernetes 1.33.
    const subPath = asString(mount.subPath) ?? "";
    const subPathExpr = asString(mount.subPathExpr) ?? "";
    for (const [field, value] of [
      ["subPath", subPath],
      ["subPathExpr", subPathExpr],
    ] as const) {
      if (value === "") continue;
      if (field === "subPathExpr" && subPath !== "") {
        ctx.report({
          type: "Invalid",
          path: path.child(field),
          value,
          detail: "subPathExpr and subPath are mutually exclusive",
        });
      }
      checkLocalDescendingPath(ctx.report, path.child(field), value);
    }
    checkPropagation(ctx, mount, path, privileged);
  }
}

function checkPropagation(ctx: PodContext, mount: RawObject, path: FieldPath, privileged: boolean): void {
  const propagation = asString(mount.mountPropagation);
  if (propagation === "Bidirectional" && !privileged) {
    ctx.report({
      type: "Forbidden",
      path: path.child("mountPropagation"),
      detail: "Bidirectional mount propagation is available only to privileged containers",
    });
  }
  const recursive = asString(mount.recursiveReadOnly);
  if (recursive === "Enabled" || recursive === "IfPossible") {
    if (mount.readOnly !== true)
      ctx.report({
        type: "Forbidden",
        path: path.child("recursiveReadOnly"),
        detail: "may only be specified when readOnly is true",
      });
    if (propagation !== undefined && propagation !== "None") {
      ctx.report({
        type: "Forbidden",
        path: path.child("recursiveReadOnly"),
        detail: "may only be specified when mountPropagation is None or not specified",
      });
    }
  }
}
