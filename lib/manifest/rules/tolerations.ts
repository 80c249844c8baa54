import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { findLabelValueErrors, findQualifiedNameErrors } from "./names.js";
import { reportInvalid } from "./context.js";
import { asString, isSet, listObjectItems, type RawObject } from "./raw.js";

// ValidateTolerations (pkg/apis/core/validation). podrun has no scheduler and ignores tolerations
// (a Warning), but a toleration a cluster refuses is refused here too. The comparison operators
// `Lt` and `Gt` are in the v1.36 schema behind the TaintTolerationComparisonOperators gate, alpha
// and off by default: an API server refuses them, so podrun does.
// https://github.com/kubernetes/kubernetes/blob/release-1.36/pkg/apis/core/validation/validation.go

const OPERATORS = ["Equal", "Exists"];
const GATED_OPERATORS = ["Lt", "Gt"];

export function validateTolerations(report: Reporter, spec: RawObject): void {
  for (const [i, toleration] of listObjectItems(spec.tolerations)) {
    const path = FieldPath.root().child("spec").child("tolerations").index(i);
    const key = asString(toleration.key) ?? "";
    const operator = asString(toleration.operator) ?? "";
    const value = asString(toleration.value) ?? "";
    const effect = asString(toleration.effect) ?? "";
    if (key !== "") reportInvalid(report, path.child("key"), key, findQualifiedNameErrors(key));
    if (key === "" && operator !== "Exists") {
      report({
        type: "Invalid",
        path: path.child("operator"),
        value: operator,
        detail: 'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      });
    }
    if (isSet(toleration.tolerationSeconds) && effect !== "NoExecute") {
      report({
        type: "Invalid",
        path: path.child("effect"),
        value: effect,
        detail: "effect must be 'NoExecute' when `tolerationSeconds` is set",
      });
    }
    if (operator === "" || operator === "Equal") {
      const errors = findLabelValueErrors(value);
      if (errors.length > 0) report({ type: "Invalid", path: path.child("operator"), value, detail: errors.join(";") });
    } else if (operator === "Exists") {
      if (value !== "")
        report({
          type: "Invalid",
          path: path.child("operator"),
          value: toleration,
          detail: "value must be empty when `operator` is 'Exists'",
        });
    } else if (GATED_OPERATORS.includes(operator)) {
      // Any other value is outside the schema's enum, and reported by the structural check.
      report({ type: "Unsupported", path: path.child("operator"), value: operator, supported: OPERATORS });
    }
  }
}
