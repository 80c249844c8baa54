import type { PersistentVolumeClaim } from "kubernetes-types/core/v1.js";
import { KIND_API_VERSIONS } from "../manifest/kinds.js";
import { defaultConfigMap, defaultSecret } from "../manifest/defaults.js";
import { findClaimWarnings, validatePersistentVolumeClaim } from "../manifest/rules/persistent-volume-claim.js";
import { validateConfigMap, validateSecret } from "../manifest/validate-objects.js";
import { metaOf } from "./meta.js";
import type { KindEntry } from "./types.js";

// The objects pods read and nothing runs: ConfigMaps and Secrets (env, volumes, pull secrets) and
// PersistentVolumeClaims (one engine volume per claim, lib/pod/volumes/claim-volumes.ts).

const readByPods = { referable: true, ownsPods: false, run: "none" } as const;

export const CONFIG_MAP_KIND: KindEntry = {
  ...readByPods,
  kind: "ConfigMap",
  apiVersion: KIND_API_VERSIONS.ConfigMap,
  order: 0,
  validate: (value, { report }) => validateConfigMap(value, report),
  admit(value) {
    const configMap = defaultConfigMap(value);
    const object = configMap as Record<string, unknown>;
    return {
      kind: "ConfigMap",
      ...metaOf(configMap),
      object,
      pods: [],
      podObjects: { configMaps: [configMap] },
      source: "",
    };
  },
};

export const SECRET_KIND: KindEntry = {
  ...readByPods,
  kind: "Secret",
  apiVersion: KIND_API_VERSIONS.Secret,
  order: 1,
  validate: (value, { report }) => validateSecret(value, report),
  admit(value) {
    const secret = defaultSecret(value);
    const object = secret as Record<string, unknown>;
    return { kind: "Secret", ...metaOf(secret), object, pods: [], podObjects: { secrets: [secret] }, source: "" };
  },
  printable: (object) => redactSecret(object),
};

export const PERSISTENT_VOLUME_CLAIM_KIND: KindEntry = {
  ...readByPods,
  kind: "PersistentVolumeClaim",
  apiVersion: KIND_API_VERSIONS.PersistentVolumeClaim,
  order: 2,
  validate: (value, { report }) => validatePersistentVolumeClaim(value, report),
  admit(value, { warn }) {
    findClaimWarnings(value, warn);
    const claim = value as PersistentVolumeClaim;
    const podObjects = { persistentVolumeClaims: [claim] };
    return { kind: "PersistentVolumeClaim", ...metaOf(claim), object: value, pods: [], podObjects, source: "" };
  },
};

// Secret values never reach an output stream: CI logs are read by many.
function redactSecret<T extends { data?: unknown; stringData?: unknown }>(secret: T): T {
  const redact = (map: unknown) =>
    map && Object.fromEntries(Object.keys(map as Record<string, string>).map((key) => [key, "<redacted>"]));
  return {
    ...secret,
    ...(secret.data ? { data: redact(secret.data) } : {}),
    ...(secret.stringData ? { stringData: redact(secret.stringData) } : {}),
  };
}
