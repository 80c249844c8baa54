import { UsageError } from "../errors.js";

// kubectl's `--field-selector`: `field=value`, `field==value` or `field!=value`, joined by ','
// (all must hold), read as apimachinery's fields.ParseSelector reads it
// (https://github.com/kubernetes/apimachinery/blob/v0.34.0/pkg/fields/selector.go): a backslash
// escapes ',', '=' and itself in a value. Which fields may be selected on is the kind's: the API
// server answers "field label not supported" for the others, and so does podrun, before any engine
// is asked.

export interface FieldRequirement {
  field: string;
  operator: "=" | "!=";
  value: string;
}

export interface FieldSelector {
  readonly text: string;
  readonly requirements: readonly FieldRequirement[];
}

/** Splits on the separators that are not escaped; the escapes stay for the next step. */
function splitTerms(text: string, separator: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === separator) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

function unescape(value: string, selector: string): string {
  return value.replace(/\\(.?)/g, (_match, next: string) => {
    if (next === "\\" || next === "," || next === "=") return next;
    throw new UsageError(`invalid field selector "${selector}": invalid escape sequence '\\${next}'`);
  });
}

/**
 * Parses a field selector; a field outside `supported` is refused as the API server refuses it.
 * Both failures are usage errors (exit 2).
 */
export function parseFieldSelector(text: string, supported: readonly string[]): FieldSelector {
  const requirements: FieldRequirement[] = [];
  if (text.trim() === "") return { text, requirements };
  for (const term of splitTerms(text, ",")) {
    const match = /^(.*?)(!=|==|=)(.*)$/s.exec(term);
    if (!match) throw new UsageError(`invalid field selector "${text}": can't understand '${term}'`);
    const [, field, op, rawValue] = match as unknown as [string, string, string, string];
    if (!supported.includes(field))
      throw new UsageError(
        `field label not supported: ${field} (--field-selector "${text}"; supported: ${supported.join(", ")})`,
      );
    requirements.push({ field, operator: op === "!=" ? "!=" : "=", value: unescape(rawValue, text) });
  }
  return { text, requirements };
}

/** Whether an object's selectable fields satisfy every requirement (an absent field reads as ""). */
export function matchesFieldSelector(selector: FieldSelector, fields: Readonly<Record<string, string>>): boolean {
  return selector.requirements.every(({ field, operator, value }) =>
    operator === "=" ? (fields[field] ?? "") === value : (fields[field] ?? "") !== value,
  );
}
