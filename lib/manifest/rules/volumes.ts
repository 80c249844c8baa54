import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { reportInvalid, type PodContext } from "./context.js";
import { findDns1123LabelErrors } from "./names.js";
import { checkNoBacksteps } from "./paths.js";
import { asObject, asString, isBlank, isSet, listObjectItems, type RawObject } from "./raw.js";
import {
  checkDownwardItems,
  checkProjectedSources,
  checkVolumeItems,
  FILE_MODE_ERROR,
  isFileMode,
} from "./volume-items.js";

// ValidateVolumes: names, exactly one source per volume, and the sources podrun can check locally.

/** The volume sources of core/v1, in the order validateVolumeSource tries them. */
const VOLUME_SOURCES = [
  "emptyDir",
  "hostPath",
  "gitRepo",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "secret",
  "nfs",
  "iscsi",
  "glusterfs",
  "flocker",
  "persistentVolumeClaim",
  "rbd",
  "cinder",
  "cephfs",
  "quobyte",
  "downwardAPI",
  "fc",
  "flexVolume",
  "configMap",
  "azureFile",
  "vsphereVolume",
  "photonPersistentDisk",
  "portworxVolume",
  "azureDisk",
  "storageos",
  "projected",
  "scaleIO",
  "csi",
  "ephemeral",
  "image",
] as const;

/** Returns the named volumes, the first of each name, for the mounts to refer to. */
export function collectVolumes(spec: RawObject, report: Reporter): Map<string, RawObject> {
  const volumes = new Map<string, RawObject>();
  const path = FieldPath.root().child("spec").child("volumes");
  for (const [i, volume] of listObjectItems(spec.volumes)) {
    const namePath = path.index(i).child("name");
    const name = asString(volume.name);
    if (name === undefined && isSet(volume.name)) continue;
    if (!name) report({ type: "Required", path: namePath });
    else if (volumes.has(name)) report({ type: "Duplicate", path: namePath, value: name });
    else {
      reportInvalid(report, namePath, name, findDns1123LabelErrors(name));
      volumes.set(name, volume);
    }
  }
  return volumes;
}

/** Checks the source of each volume; run after collectVolumes, with the pod's context. */
export function validateVolumeSources(ctx: PodContext, spec: RawObject): void {
  const path = FieldPath.root().child("spec").child("volumes");
  for (const [i, volume] of listObjectItems(spec.volumes)) {
    const volumePath = path.index(i);
    const present = VOLUME_SOURCES.filter((source) => isSet(volume[source]));
    // A cluster defaults a volume without a source to emptyDir; podrun asks for it written out.
    if (present.length === 0) ctx.report({ type: "Required", path: volumePath, detail: "must specify a volume type" });
    for (const extra of present.slice(1)) {
      ctx.report({
        type: "Forbidden",
        path: volumePath.child(extra),
        detail: "may not specify more than 1 volume type",
      });
    }
    const first = present[0];
    const source = first && asObject(volume[first]);
    if (first && source) checkSource(ctx, first, source, volumePath.child(first));
  }
}

function checkSource(ctx: PodContext, kind: string, source: RawObject, path: FieldPath): void {
  switch (kind) {
    case "hostPath": {
      const hostPath = asString(source.path);
      if (isBlank(source.path)) ctx.report({ type: "Required", path: path.child("path") });
      else if (hostPath !== undefined) checkNoBacksteps(ctx.report, path.child("path"), hostPath);
      return;
    }
    case "configMap":
    case "secret": {
      const nameField = kind === "secret" ? "secretName" : "name";
      if (isBlank(source[nameField])) ctx.report({ type: "Required", path: path.child(nameField) });
      checkDefaultMode(ctx.report, source, path);
      checkVolumeItems(ctx, source, path, kind === "secret" ? "Secret" : "ConfigMap", nameField);
      return;
    }
    case "downwardAPI":
      checkDefaultMode(ctx.report, source, path);
      checkDownwardItems(ctx.report, source, path);
      return;
    case "projected":
      checkDefaultMode(ctx.report, source, path);
      checkProjectedSources(ctx, source, path);
      return;
    case "persistentVolumeClaim":
      if (isBlank(source.claimName)) ctx.report({ type: "Required", path: path.child("claimName") });
      return;
  }
}

function checkDefaultMode(report: Reporter, source: RawObject, path: FieldPath): void {
  if (typeof source.defaultMode === "number" && !isFileMode(source.defaultMode)) {
    report({ type: "Invalid", path: path.child("defaultMode"), value: source.defaultMode, detail: FILE_MODE_ERROR });
  }
}
