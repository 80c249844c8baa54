import { parseQuantity } from "../../resources/quantity.js";
import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { reportInvalid } from "./context.js";
import { validateObjectMeta } from "./metadata.js";
import { findDns1123SubdomainErrors } from "./names.js";
import { asArray, asObject, asString, isSet } from "./raw.js";

// ValidatePersistentVolumeClaim (pkg/apis/core/validation/validation.go): the claim's own rules,
// after the structural checker has refused unknown fields and access modes outside the enum.
// The field paths are the API server's, `spec.resources[storage]` included (it names the
// resource by key under `resources`, not under `requests`).

/** Validates a PersistentVolumeClaim (raw object, after the structural check). */
export function validatePersistentVolumeClaim(claim: unknown, report: Reporter): void {
  const object = asObject(claim);
  if (!object) return;
  validateObjectMeta(object, report);
  const path = FieldPath.root().child("spec");
  const spec = asObject(object.spec) ?? {};
  const modes = (asArray(spec.accessModes) ?? []).filter((mode): mode is string => typeof mode === "string");
  if (modes.length === 0)
    report({ type: "Required", path: path.child("accessModes"), detail: "at least 1 access mode is required" });
  if (modes.includes("ReadWriteOncePod") && modes.length > 1) {
    report({
      type: "Forbidden",
      path: path.child("accessModes"),
      detail: "may not use ReadWriteOncePod with other access modes",
    });
  }
  const storagePath = path.child("resources").key("storage");
  const storage = asObject(asObject(spec.resources)?.requests)?.storage;
  if (!isSet(storage)) {
    report({ type: "Required", path: storagePath });
  } else if (typeof storage === "string" || typeof storage === "number") {
    // A value that does not parse is the structural checker's.
    const quantity = parseQuantity(storage);
    if (quantity && quantity.numerator < 0n)
      report({
        type: "Invalid",
        path: storagePath,
        value: String(storage),
        detail: "must be greater than or equal to 0",
      });
    if (quantity && quantity.numerator <= 0n)
      report({ type: "Invalid", path: storagePath, value: String(storage), detail: "must be greater than zero" });
  }
  const storageClass = asString(spec.storageClassName);
  if (storageClass)
    reportInvalid(report, path.child("storageClassName"), storageClass, findDns1123SubdomainErrors(storageClass));
}

/**
 * What podrun does not do with a valid claim, one Warning each: the claim is always the engine's
 * local volume (docker and podman local volumes have no size, no class, no access enforcement).
 */
export function findClaimWarnings(claim: unknown, report: Reporter): void {
  const spec = asObject(asObject(claim)?.spec);
  if (!spec) return;
  const path = FieldPath.root().child("spec");
  if (isSet(asObject(asObject(spec.resources)?.requests)?.storage)) {
    const storage = path.child("resources").child("requests").child("storage");
    report({
      type: "Forbidden",
      path: storage,
      detail: "podrun gives the claim the engine's local volume, which has no size: it holds what the disk holds",
    });
  }
  if (asString(spec.storageClassName)) {
    report({
      type: "Forbidden",
      path: path.child("storageClassName"),
      detail: "podrun has no storage classes: the claim is the engine's local volume",
    });
  }
  for (const field of ["selector", "dataSource", "dataSourceRef", "volumeName", "volumeAttributesClassName"]) {
    if (isSet(spec[field]))
      report({
        type: "Forbidden",
        path: path.child(field),
        detail: "not acted on by podrun: the claim is a new, empty engine volume of its own",
      });
  }
  if (spec.volumeMode === "Block")
    report({
      type: "Forbidden",
      path: path.child("volumeMode"),
      detail: "podrun gives a claim a filesystem (the engine's local volume), never a block device",
    });
}

/** `namespace/name` of a claim object, for findMissingClaims; undefined without a name. */
export function claimKeyOf(claim: unknown): string | undefined {
  const meta = asObject(asObject(claim)?.metadata);
  const name = asString(meta?.name);
  return name ? `${asString(meta?.namespace) || "default"}/${name}` : undefined;
}

/**
 * A pod volume naming a claim that none of the files defines: valid for the API server, but on a
 * node the pod cannot mount it and waits (FailedMount). The kubelet's error (FieldError.kubelet):
 * a Warning at `validate`, refused by `up` before it creates anything.
 */
export function findMissingClaims(pod: unknown, claims: ReadonlySet<string>, report: Reporter): void {
  const object = asObject(pod);
  const namespace = asString(asObject(object?.metadata)?.namespace) || "default";
  (asArray(asObject(object?.spec)?.volumes) ?? []).forEach((volume, index) => {
    const claimName = asString(asObject(asObject(volume)?.persistentVolumeClaim)?.claimName);
    if (!claimName || claims.has(`${namespace}/${claimName}`)) return;
    const path = FieldPath.root()
      .child("spec")
      .child("volumes")
      .index(index)
      .child("persistentVolumeClaim")
      .child("claimName");
    report({
      type: "NotFound",
      path,
      value: claimName,
      detail: `no PersistentVolumeClaim ${JSON.stringify(claimName)} in namespace ${JSON.stringify(namespace)} in the files read`,
      kubelet: "FailedMount",
    });
  });
}
