import type { FieldPath } from "./field-path.js";

// The error kinds of k8s.io/apimachinery/pkg/util/validation/field, plus the strict decoder's
// unknown field, so users read the same words as from `kubectl apply --validate=strict`.
export type FieldErrorType =
  | "Required"
  | "Invalid"
  | "Unsupported"
  | "Duplicate"
  | "NotFound"
  | "Forbidden"
  | "TooLong"
  | "TypeInvalid"
  | "UnknownField"
  /** A kind the API server does not serve at that apiVersion: `detail` is kubectl's line (served-kinds.ts). */
  | "NoKindMatch";

/**
 * The reason a kubelet gives for what only it finds, when the pod starts: an API server stores the
 * object, and the node then fails the container (InvalidImageName, CreateContainerConfigError),
 * the volume (FailedMount), or pulls without the credentials (FailedToRetrieveImagePullSecret, then
 * ErrImagePull where the registry wants them).
 */
export type KubeletReason =
  | "InvalidImageName"
  | "CreateContainerConfigError"
  | "FailedMount"
  | "FailedToRetrieveImagePullSecret"
  | "ErrImagePull";

export interface FieldError {
  type: FieldErrorType;
  path: FieldPath;
  /** The offending value (Invalid, Unsupported, Duplicate, NotFound, TypeInvalid). */
  value?: unknown;
  /** Free text after the kind (Invalid, Required, Forbidden, TypeInvalid). */
  detail?: string;
  /** Allowed values (Unsupported). */
  supported?: readonly string[];
  /** UnknownField: the unknown key; `path` is then the path of the object holding it. */
  field?: string;
  /** Locate the error on the key rather than the value (unknown fields, duplicate keys). */
  atKey?: boolean;
  /** Further fields the same warning names, after `path` (which gives the position). */
  others?: readonly FieldPath[];
  /**
   * Set when an API server accepts the value and only the kubelet fails on it, with this reason:
   * `validate` says it in a Warning, `up` refuses it before creating anything (load-manifest.ts).
   */
  kubelet?: KubeletReason;
  /** A line of advice printed once after all the lines of a command, however many errors carry it. */
  hint?: string;
}

export type Reporter = (error: FieldError) => void;

// Go's %v of the value, with strings quoted as %q does: what field.Error.Error() prints.
export function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

/** `spec.containers[0].image: Required value`, in apimachinery's words. */
export function formatFieldError(e: FieldError): string {
  // An error about a whole document has no field path: print the message alone.
  const p = e.path.display;
  const lead = p ? `${p}: ` : "";
  const withDetail = (head: string) => (e.detail ? `${head}: ${e.detail}` : head);
  switch (e.type) {
    case "Required":
      return `${lead}${withDetail("Required value")}`;
    case "Invalid":
    case "TypeInvalid":
      return `${lead}${withDetail(`Invalid value: ${formatValue(e.value)}`)}`;
    case "Unsupported": {
      const list = (e.supported ?? []).map((s) => JSON.stringify(s)).join(", ");
      return `${lead}Unsupported value: ${formatValue(e.value)}${list ? `: supported values: ${list}` : ""}`;
    }
    case "Duplicate":
      return `${lead}${withDetail(`Duplicate value: ${formatValue(e.value)}`)}`;
    case "NotFound":
      return `${lead}${withDetail(`Not found: ${formatValue(e.value)}`)}`;
    case "Forbidden":
      return `${lead}Forbidden${e.detail ? `: ${e.detail}` : ""}`;
    case "TooLong":
      return `${lead}Too long: ${e.detail ?? "value is too long"}`;
    case "UnknownField":
      return `${lead}unknown field ${JSON.stringify(e.field ?? "")}`;
    case "NoKindMatch":
      return `${lead}${e.detail ?? ""}`;
  }
}
