import { parseQuantity, type Quantity } from "../../resources/quantity.js";
import {
  aggregateContainerRequests,
  compareQuantities,
  defaultPodRequests,
  formatQuantity,
  isOvercommitAllowed,
  isSupportedPodLevelResource,
} from "../../resources/pod-requests.js";
import type { Reporter } from "../field-error.js";
import { FieldPath } from "../field-path.js";
import { asObject, isSet, listObjectItems, type RawObject } from "./raw.js";

// Pod-level resources (spec.resources), as the API server checks them with the PodLevelResources
// feature on (beta, on by default since 1.34): validatePodResources and
// validatePodResourceConsistency in pkg/apis/core/validation/validation.go, on the pod as
// defaultPodRequests (pkg/apis/core/v1/defaults.go) leaves it.
// - only cpu, memory and hugepages-<size>, each quantity not negative, no claims;
// - each request at most its limit (hugepages: equal, and a limit for every request);
// - each pod-level request at least the containers' aggregate request (init containers and
//   sidecars counted as the scheduler counts them);
// - no app container's limit above the pod's limit of that resource.
// Departures: a container's limit above the pod's is reported at that limit
// (`spec.containers[0].resources.limits[memory]`), where the API server names a path that is not
// in the manifest; values in messages are quantities as written, sums in canonical form.

const specPath = FieldPath.root().child("spec");
const NEGATIVE = "must be greater than or equal to 0";
const SUPPORTED = ["cpu", "hugepages-", "memory"];
const QOS_RESOURCES = new Set(["cpu", "memory"]);

interface Written {
  text: string;
  quantity: Quantity;
}

export function validatePodResources(report: Reporter, spec: RawObject): void {
  const resources = asObject(spec.resources);
  if (!resources) return;
  const path = specPath.child("resources");
  if (isSet(resources.claims))
    report({
      type: "Forbidden",
      path: path.child("claims"),
      detail: "claims cannot be set for Resources at pod-level",
    });

  const limits = readWritten(report, resources.limits, path.child("limits"));
  const written = readWritten(report, resources.requests, path.child("requests"));
  // The requests compared are those the API server would have stored: the written ones, and
  // those it defaults from the containers or the pod-level limits.
  const requests = new Map<string, Written>();
  for (const [name, quantity] of defaultPodRequests(spec)) {
    if (compareQuantities(quantity, ZERO) < 0) continue;
    requests.set(name, written.get(name) ?? { text: formatQuantity(quantity, name !== "cpu"), quantity });
  }
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (limit) {
      const order = compareQuantities(request.quantity, limit.quantity);
      if (order !== 0 && !isOvercommitAllowed(name)) {
        report({
          type: "Invalid",
          path: path.child("requests"),
          value: request.text,
          detail: `must be equal to ${name} limit of ${limit.text}`,
        });
      } else if (order > 0) {
        report({
          type: "Invalid",
          path: path.child("requests"),
          value: request.text,
          detail: `must be less than or equal to ${name} limit of ${limit.text}`,
        });
      }
    } else if (!isOvercommitAllowed(name)) {
      report({
        type: "Required",
        path: path.child("limits"),
        detail: "Limit must be set for non overcommitable resources",
      });
    }
  }
  const names = [...limits.keys(), ...requests.keys()];
  if (names.some((name) => name.startsWith("hugepages-")) && !names.some((name) => QOS_RESOURCES.has(name))) {
    report({ type: "Forbidden", path, detail: "HugePages require cpu or memory" });
  }

  // An absent pod-level request reads as zero, as in the API server's comparison.
  for (const [name, aggregate] of aggregateContainerRequests(spec)) {
    const request = requests.get(name) ?? { text: "0", quantity: ZERO };
    if (compareQuantities(aggregate, request.quantity) <= 0) continue;
    const detail = `must be greater than or equal to aggregate container requests of ${formatQuantity(aggregate, name !== "cpu")}`;
    report({ type: "Invalid", path: path.child("requests").key(name), value: request.text, detail });
  }
  for (const [i, container] of listObjectItems(spec.containers)) {
    const limitsPath = specPath.child("containers").index(i).child("resources").child("limits");
    for (const [name, limit] of readEntries(asObject(container.resources)?.limits)) {
      const podLimit = limits.get(name);
      if (!podLimit || compareQuantities(limit.quantity, podLimit.quantity) <= 0) continue;
      report({
        type: "Invalid",
        path: limitsPath.key(name),
        value: limit.text,
        detail: `must be less than or equal to pod limits of ${podLimit.text}`,
      });
    }
  }
}

const ZERO: Quantity = { numerator: 0n, denominator: 1n };

/** The non-negative quantities of spec.resources.limits or .requests; a bad name or a negative value is reported. */
function readWritten(report: Reporter, list: unknown, path: FieldPath): Map<string, Written> {
  for (const name of Object.keys(asObject(list) ?? {})) {
    if (!isSupportedPodLevelResource(name))
      report({ type: "Unsupported", path: path.key(name), value: name, supported: SUPPORTED });
  }
  const read = readEntries(list);
  for (const [name, { text, quantity }] of read) {
    if (quantity.numerator >= 0n) continue;
    report({ type: "Invalid", path: path.key(name), value: text, detail: NEGATIVE });
    read.delete(name);
  }
  return read;
}

/** A limits or requests map's readable quantities, with their text as written. */
function readEntries(list: unknown): Map<string, Written> {
  const read = new Map<string, Written>();
  for (const [name, value] of Object.entries(asObject(list) ?? {})) {
    if (typeof value !== "string" && typeof value !== "number") continue;
    const text = String(value).trim();
    const quantity = parseQuantity(text);
    if (quantity) read.set(name, { text, quantity });
  }
  return read;
}
