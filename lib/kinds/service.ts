import type { Service } from "kubernetes-types/core/v1.js";
import { KIND_API_VERSIONS } from "../manifest/kinds.js";
import { defaultService, findServiceWarnings, validateService, validateServiceSet } from "../manifest/rules/service.js";
import { metaOf } from "./meta.js";
import type { KindEntry } from "./types.js";

// A Service: made before every pod of the run (lib/services/), so that the pods find its name and
// its environment variables, as on a cluster where the Service is there before the pods that use it.

export const SERVICE_KIND: KindEntry = {
  kind: "Service",
  apiVersion: KIND_API_VERSIONS.Service,
  referable: false,
  resource: { plural: "services", singular: "service", short: "svc" },
  ownsPods: false,
  order: 3,
  run: "service",
  validate: (value, { report }) => validateService(value, report),
  // nodePorts are unique across the Services of the set, as the API server's one allocator keeps them.
  validateSet: (objects) => validateServiceSet(objects),
  admit(value, { warn }) {
    findServiceWarnings(value, warn);
    const service = defaultService(value);
    return { kind: "Service", ...metaOf(service), object: service as Record<string, unknown>, pods: [], source: "" };
  },
  describe: (item) => describeService(item.object),
};

/** `Service api (ClusterIP, 80→http)`. */
function describeService(service: Service): string {
  const spec = service.spec ?? {};
  const type = spec.type === "ClusterIP" && spec.clusterIP === "None" ? "headless" : (spec.type ?? "ClusterIP");
  const ports = (spec.ports ?? []).map((p) =>
    p.targetPort !== undefined && p.targetPort !== p.port ? `${p.port}→${p.targetPort}` : `${p.port}`,
  );
  return `Service ${service.metadata?.name} (${[type, ...ports].join(", ")})`;
}
