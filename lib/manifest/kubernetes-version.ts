import { readFileSync } from "node:fs";

// The Kubernetes release whose Pod API podrun validates against: the schema of
// lib/manifest/schema.generated.ts comes from kubernetes-models 5.1.0, generated from the OpenAPI
// spec of Kubernetes v1.36.0, and the semantic rules follow that release's API server.
// Bumping kubernetes-models means checking the rules and changing both constants together
// (test/manifest/kubernetes-version.test.ts holds them to the generated schema).

/** The kubernetes-models release the generated schema comes from. */
export const SCHEMA_MODELS = "kubernetes-models@5.1.0";

/** The Kubernetes minor release of that schema, as `podrun --version` names it. */
export const KUBERNETES_API_VERSION = "v1.36";

/** podrun's own version (package.json's) with the API it follows: `0.1.0 (Kubernetes API v1.36)`. */
export function podrunVersion(): { podrun: string; line: string } {
  const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return { podrun: version, line: `${version} (Kubernetes API ${KUBERNETES_API_VERSION})` };
}
