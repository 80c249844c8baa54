// `$(VAR)` references in env values, command and args, as the kubelet expands them
// (kubernetes/kubernetes third_party/forked/golang/expansion/expand.go):
// - `$(NAME)` becomes NAME's value; an undefined NAME stays `$(NAME)`, literally;
// - `$$` is an escaped `$`; `$` before anything else, and a `$(` never closed, stay as written;
// - no nesting, no `${}`, no backslash escapes: the name is whatever lies between `$(` and the first `)`.

const OPERATOR = "$";
const OPENER = "(";
const CLOSER = ")";

/** `input` with every `$(NAME)` that `lookup` knows replaced by its value, and `$$` by `$`. */
export function expandVars(input: string, lookup: (name: string) => string | undefined): string {
  let out = "";
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== OPERATOR || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === OPERATOR) {
      out += OPERATOR;
    } else if (next === OPENER) {
      const close = input.indexOf(CLOSER, cursor + 2);
      if (close === -1) {
        // An unclosed `$(` is kept, and scanning resumes after it: a later `$(X)` still expands.
        out += OPERATOR + OPENER;
      } else {
        const name = input.slice(cursor + 2, close);
        out += lookup(name) ?? `${OPERATOR}${OPENER}${name}${CLOSER}`;
        advance = close - cursor;
      }
    } else {
      out += OPERATOR + next;
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** A lookup over env entries as the kubelet builds its map: later entries win. */
export function envLookup(env: readonly { name: string; value: string }[]): (name: string) => string | undefined {
  const values = new Map<string, string>();
  for (const entry of env) values.set(entry.name, entry.value);
  return (name) => values.get(name);
}
