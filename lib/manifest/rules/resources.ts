import { parseQuantity, type Quantity } from "../../resources/quantity.js";
import type { Reporter } from "../field-error.js";
import type { FieldPath } from "../field-path.js";
import { asObject } from "./raw.js";

// A container's resources: the quantity checks of ValidateContainerResourceRequirements
// (pkg/apis/core/validation/validation.go) that decide what reaches the engine. The syntax of a
// quantity is the structural checker's (schema.ts); here, no value below zero and no request
// above its limit (the engines refuse a memory reservation above the limit at create).
// Departure: the value in a message is the quantity as written, where the API server prints its
// canonical form (`0.5` as `500m`).

const NEGATIVE = "must be greater than or equal to 0";

// requests ≤ limits is checked for the resources the API server lets overcommit and podrun knows;
// the others (hugepages, extended resources) are warned about as not acted on.
const COMPARED = new Set(["cpu", "memory", "ephemeral-storage"]);

export function validateContainerResources(
  report: Reporter,
  container: Record<string, unknown>,
  path: FieldPath,
): void {
  const resources = asObject(container.resources);
  if (!resources) return;
  const resourcesPath = path.child("resources");
  const limits = readQuantities(report, resources.limits, resourcesPath.child("limits"));
  const requests = readQuantities(report, resources.requests, resourcesPath.child("requests"));
  for (const [name, request] of requests) {
    const limit = limits.get(name);
    if (!limit || !COMPARED.has(name) || compareQuantities(request.quantity, limit.quantity) <= 0) continue;
    report({
      type: "Invalid",
      path: resourcesPath.child("requests"),
      value: request.text,
      detail: `must be less than or equal to ${name} limit of ${limit.text}`,
    });
  }
}

interface ReadQuantity {
  text: string;
  quantity: Quantity;
}

/** The readable, non-negative quantities of a limits or requests map; a negative one is reported. */
function readQuantities(report: Reporter, list: unknown, path: FieldPath): Map<string, ReadQuantity> {
  const read = new Map<string, ReadQuantity>();
  for (const [name, value] of Object.entries(asObject(list) ?? {})) {
    if (typeof value !== "string" && typeof value !== "number") continue;
    const text = String(value).trim();
    const quantity = parseQuantity(text);
    if (!quantity) continue;
    if (quantity.numerator < 0n) report({ type: "Invalid", path: path.key(name), value: text, detail: NEGATIVE });
    else read.set(name, { text, quantity });
  }
  return read;
}

/** Sign of a − b, exactly (denominators are positive). */
function compareQuantities(a: Quantity, b: Quantity): number {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left === right ? 0 : left > right ? 1 : -1;
}
