import { countBytes } from "./raw.js";

// The string formats of k8s.io/apimachinery/pkg/util/validation (and its newer api/validate/content
// package for label keys and values). Each function returns apimachinery's messages, empty when
// the value is valid; callers wrap each message in a field error.

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_RE = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const CONFIG_KEY_FMT = "[-._a-zA-Z0-9]+";
const CONFIG_KEY_RE = new RegExp(`^${CONFIG_KEY_FMT}$`);
const HTTP_HEADER_FMT = "[-A-Za-z0-9]+";

/** apimachinery's RegexError: `msg (e.g. 'a',  or 'b', regex used for validation is '…')`. */
export function formatRegexError(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  const shown = examples.map((example) => `'${example}', `).join(" or ");
  return `${message} (e.g. ${shown}regex used for validation is '${format}')`;
}

// util/validation says "characters"; the newer content package (label keys, values) says "bytes".
const formatMaxLength = (length: number, unit = "characters") => `must be no more than ${length} ${unit}`;

export function formatRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

export function findDns1123LabelErrors(value: string): string[] {
  const errors: string[] = [];
  if (countBytes(value) > 63) errors.push(formatMaxLength(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    // A valid subdomain that is not a label can only be wrong for its dots.
    if (DNS1123_SUBDOMAIN_RE.test(value)) errors.push("must not contain dots");
    else
      errors.push(
        formatRegexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL_FMT,
          "my-name",
          "123-abc",
        ),
      );
  }
  return errors;
}

export function findDns1123SubdomainErrors(value: string): string[] {
  const errors: string[] = [];
  if (countBytes(value) > 253) errors.push(formatMaxLength(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) {
    errors.push(
      formatRegexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        "example.com",
      ),
    );
  }
  return errors;
}

const DNS1123_LABEL_UNDERSCORE_FMT = "_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_UNDERSCORE_FMT = `${DNS1123_LABEL_UNDERSCORE_FMT}(\\.${DNS1123_LABEL_UNDERSCORE_FMT})*`;
const DNS1123_SUBDOMAIN_UNDERSCORE_RE = new RegExp(`^${DNS1123_SUBDOMAIN_UNDERSCORE_FMT}$`);

/** IsDNS1123SubdomainWithUnderscore: a DNS search domain may hold service names (`_sip._tcp.example.com`). */
export function findDns1123SubdomainWithUnderscoreErrors(value: string): string[] {
  const errors: string[] = [];
  if (countBytes(value) > 253) errors.push(formatMaxLength(253));
  if (!DNS1123_SUBDOMAIN_UNDERSCORE_RE.test(value)) {
    errors.push(
      formatRegexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_UNDERSCORE_FMT,
        "example.com",
      ),
    );
  }
  return errors;
}

/** NameIsDNSSubdomain: with `prefix` (a generateName, an envFrom name) a trailing '-' is allowed. */
export function findObjectNameErrors(value: string, prefix = false): string[] {
  return findDns1123SubdomainErrors(
    prefix && value.length > 1 && value.endsWith("-") ? `${value.slice(0, -1)}a` : value,
  );
}

/** A label key, annotation key or other "qualified name": `[prefix/]name`. */
export function findQualifiedNameErrors(value: string): string[] {
  const parts = value.split("/");
  if (parts.length > 2) {
    return [
      `a valid label key ${formatRegexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const errors: string[] = [];
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === "") errors.push("prefix part must be non-empty");
    else errors.push(...findDns1123SubdomainErrors(prefix).map((message) => `prefix part ${message}`));
  }
  if (name === "") errors.push("name part must be non-empty");
  else if (countBytes(name) > 63) errors.push(`name part ${formatMaxLength(63, "bytes")}`);
  if (!LABEL_KEY_RE.test(name))
    errors.push(`name part ${formatRegexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`);
  return errors;
}

export function findLabelValueErrors(value: string): string[] {
  const errors: string[] = [];
  if (countBytes(value) > 63) errors.push(formatMaxLength(63, "bytes"));
  if (!LABEL_VALUE_RE.test(value)) {
    errors.push(
      formatRegexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        "MyValue",
        "my_value",
        "12345",
      ),
    );
  }
  return errors;
}

/** A key of a ConfigMap or Secret (also checked where a pod names one). */
export function findConfigMapKeyErrors(value: string): string[] {
  const errors: string[] = [];
  if (countBytes(value) > 253) errors.push(formatMaxLength(253));
  if (!CONFIG_KEY_RE.test(value))
    errors.push(
      formatRegexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        CONFIG_KEY_FMT,
        "key.name",
        "KEY_NAME",
        "key-name",
      ),
    );
  if (value === ".") errors.push("must not be '.'");
  else if (value === "..") errors.push("must not be '..'");
  else if (value.startsWith("..")) errors.push("must not start with '..'");
  return errors;
}

/** IANA_SVC_NAME, as a container port name. */
export function findPortNameErrors(value: string): string[] {
  const errors: string[] = [];
  if (countBytes(value) > 15) errors.push(formatMaxLength(15));
  if (!/^[-a-z0-9]+$/.test(value))
    errors.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(value)) errors.push("must contain at least one letter (a-z)");
  if (value.includes("--")) errors.push("must not contain consecutive hyphens");
  if (value.startsWith("-") || value.endsWith("-")) errors.push("must not begin or end with a hyphen");
  return errors;
}

export function findPortNumberErrors(value: number): string[] {
  return value >= 1 && value <= 65535 ? [] : [formatRangeError(1, 65535)];
}

/**
 * IsRelaxedEnvVarName, the rule since the RelaxedEnvironmentVariableValidation gate (beta and on
 * by default from 1.32): printable ASCII except '='. Older clusters wanted a C-like identifier.
 */
export function findEnvVarNameErrors(value: string): string[] {
  if (value === "") return ["environment variable name must be non-empty"];
  return /^[\x20-\x3c\x3e-\x7e]+$/.test(value)
    ? []
    : ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
}

export function findHttpHeaderNameErrors(value: string): string[] {
  return /^[-A-Za-z0-9]+$/.test(value)
    ? []
    : [
        formatRegexError(
          "a valid HTTP header must consist of alphanumeric characters or '-'",
          HTTP_HEADER_FMT,
          "X-Header-Name",
        ),
      ];
}
