import type { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import type { PodContext } from "./context.js";
import { checkEnvFieldRef, VOLUME_FIELD_PATHS } from "./downward.js";
import { checkLocalNonReservedPath } from "./paths.js";
import { asObject, asString, isBlank, isSet, listObjectItems, type RawObject } from "./raw.js";
import { checkObjectRef } from "./references.js";

// The files a configMap, secret, downwardAPI or projected volume writes (KeyToPath and friends).

export const FILE_MODE_ERROR = "must be a number between 0 and 0777 (octal), both inclusive";

export function isFileMode(mode: number): boolean {
  return Number.isInteger(mode) && mode >= 0 && mode <= 0o777;
}

/**
 * Checks the items of a configMap or secret source and the object they come from; returns the
 * file paths written, for projections to find duplicates.
 */
export function checkVolumeItems(
  ctx: PodContext,
  source: RawObject,
  path: FieldPath,
  kind: "ConfigMap" | "Secret",
  nameField: "name" | "secretName",
): string[] {
  const keys: { value: string; path: FieldPath }[] = [];
  const written: string[] = [];
  for (const [j, item] of listObjectItems(source.items)) {
    const itemPath = path.child("items").index(j);
    const key = asString(item.key);
    if (isBlank(item.key)) ctx.report({ type: "Required", path: itemPath.child("key") });
    else if (key !== undefined) keys.push({ value: key, path: itemPath.child("key") });
    const filePath = asString(item.path);
    if (isBlank(item.path)) ctx.report({ type: "Required", path: itemPath.child("path") });
    else if (filePath !== undefined) {
      checkLocalNonReservedPath(ctx.report, itemPath.child("path"), filePath);
      written.push(filePath);
    }
    checkMode(ctx.report, item, itemPath);
  }
  const name = asString(source[nameField]) ?? "";
  const optional = source.optional === true;
  checkObjectRef(ctx, { kind, name, namePath: path.child(nameField), optional, keys, reason: "FailedMount" });
  return written;
}

/** A downwardAPI volume or projection: each file comes from exactly one of fieldRef and resourceFieldRef. */
export function checkDownwardItems(report: Reporter, source: RawObject, path: FieldPath): string[] {
  const written: string[] = [];
  for (const [j, item] of listObjectItems(source.items)) {
    const itemPath = path.child("items").index(j);
    const filePath = asString(item.path);
    if (isBlank(item.path)) report({ type: "Required", path: itemPath.child("path") });
    else if (filePath !== undefined) {
      checkLocalNonReservedPath(report, itemPath.child("path"), filePath);
      written.push(filePath);
    }
    const fieldRef = isSet(item.fieldRef);
    const resourceFieldRef = isSet(item.resourceFieldRef);
    const fieldSelector = asObject(item.fieldRef);
    if (fieldSelector) checkEnvFieldRef(report, fieldSelector, itemPath.child("fieldRef"), VOLUME_FIELD_PATHS);
    if (fieldRef && resourceFieldRef) {
      report({
        type: "Invalid",
        path: itemPath,
        value: "resource",
        detail: "fieldRef and resourceFieldRef can not be specified simultaneously",
      });
    } else if (!fieldRef && !resourceFieldRef) {
      report({ type: "Required", path: itemPath, detail: "one of fieldRef and resourceFieldRef is required" });
    }
    checkMode(report, item, itemPath);
  }
  return written;
}

const PROJECTIONS = [
  "secret",
  "configMap",
  "downwardAPI",
  "serviceAccountToken",
  "clusterTrustBundle",
  "podCertificate",
] as const;

/** validateProjectionSources: one kind per source, and no file written twice. */
export function checkProjectedSources(ctx: PodContext, source: RawObject, path: FieldPath): void {
  const seen = new Set<string>();
  for (const [j, projection] of listObjectItems(source.sources)) {
    const sourcePath = path.child("sources").index(j);
    const kinds = PROJECTIONS.filter((kind) => isSet(projection[kind]));
    if (kinds.length > 1)
      ctx.report({ type: "Forbidden", path: sourcePath, detail: "may not specify more than 1 volume type per source" });
    for (const kind of kinds) {
      const inner = asObject(projection[kind]);
      if (!inner) continue;
      const innerPath = sourcePath.child(kind);
      let written: string[] = [];
      if (kind === "secret" || kind === "configMap") {
        if (isBlank(inner.name)) ctx.report({ type: "Required", path: innerPath.child("name") });
        written = checkVolumeItems(ctx, inner, innerPath, kind === "secret" ? "Secret" : "ConfigMap", "name");
      } else if (kind === "downwardAPI") {
        written = checkDownwardItems(ctx.report, inner, innerPath);
      } else if (kind === "serviceAccountToken") {
        checkServiceAccountToken(ctx.report, inner, innerPath);
      }
      for (const file of written) {
        if (seen.has(file))
          ctx.report({
            type: "Invalid",
            path,
            value: asString(inner.name) ?? file,
            detail: "conflicting duplicate paths",
          });
        seen.add(file);
      }
    }
  }
}

function checkServiceAccountToken(report: Reporter, token: RawObject, path: FieldPath): void {
  const expiration = token.expirationSeconds;
  if (typeof expiration === "number" && expiration < 600) {
    report({
      type: "Invalid",
      path: path.child("expirationSeconds"),
      value: expiration,
      detail: "may not specify a duration less than 10 minutes",
    });
  } else if (typeof expiration === "number" && expiration > 2 ** 32) {
    report({
      type: "Invalid",
      path: path.child("expirationSeconds"),
      value: expiration,
      detail: "may not specify a duration larger than 2^32 seconds",
    });
  }
  const filePath = asString(token.path);
  if (isBlank(token.path)) report({ type: "Required", path: path.child("path") });
  else if (filePath !== undefined) checkLocalNonReservedPath(report, path.child("path"), filePath);
}

function checkMode(report: Reporter, item: RawObject, itemPath: FieldPath): void {
  if (typeof item.mode === "number" && !isFileMode(item.mode)) {
    report({ type: "Invalid", path: itemPath.child("mode"), value: item.mode, detail: FILE_MODE_ERROR });
  }
}
