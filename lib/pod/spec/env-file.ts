import type { Container, EnvVar } from "kubernetes-types/core/v1.js";

// The kubelet's reader of env files (the EnvFiles feature, beta and on by default since 1.35:
// `env[].valueFrom.fileKeyRef`), in its words: a strict subset of POSIX shell assignments, as
// pkg/kubelet/util/env ParseEnv reads them
// (https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/util/env/env_util.go):
// - `VAR='value'`: every value in single quotes, kept literally (no escapes, no expansion), and
//   may run over several lines;
// - after the closing quote, only blanks or a `# comment`;
// - blank lines and lines starting with `#` are skipped; blanks before the name are ignored;
// - a blank before `=` is an error; a blank right after it assigns the empty string;
// - the first assignment of the key wins, and an error anywhere before it fails the read.
// A key that is not there reads as "" (the caller tells a missing key from an empty one no more
// than the kubelet does). The kubelet reports any failure of this reader only as "couldn't parse
// env file"; the detail here is for podrun's own message.

/** `env[].valueFrom.fileKeyRef` (k8s.io/api core/v1 FileKeySelector, v1.34 on; not in kubernetes-types yet). */
export interface FileKeySelector {
  /** An emptyDir of the pod (validation says so). */
  volumeName: string;
  /** The file's path in the volume. */
  path: string;
  key: string;
  optional?: boolean;
}

/** The variable's fileKeyRef, if it has one. */
export function fileKeyRefOf(variable: EnvVar): FileKeySelector | undefined {
  return (variable.valueFrom as { fileKeyRef?: FileKeySelector } | undefined)?.fileKeyRef;
}

/** The container's fileKeyRefs, in order. */
export function fileKeyRefsOf(container: Pick<Container, "env">): FileKeySelector[] {
  return (container.env ?? []).flatMap((variable) => {
    const ref = fileKeyRefOf(variable);
    return ref ? [ref] : [];
  });
}

/** The value of `key` in the env file `text`; "" when no line assigns it. Throws the kubelet's parse error. */
export function parseEnvFile(text: string, key: string): string {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  const invalid = (line: number, why: string) =>
    new Error(`invalid environment variable format at line ${line}: ${why}`);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/^[ \t]+/, "");
    if (line.trim() === "" || line.startsWith("#")) continue;
    const at = line.indexOf("=");
    if (at < 0) throw invalid(i + 1, "missing '='");
    const name = line.slice(0, at);
    if (name === "") throw invalid(i + 1, "empty variable name");
    if (/[ \t]$/.test(name)) throw invalid(i + 1, "whitespace before '=' is not allowed");
    const rest = line.slice(at + 1);
    let value = "";
    if (rest !== "" && !/^[ \t]/.test(rest)) {
      if (!rest.startsWith("'")) throw invalid(i + 1, "value must be enclosed in single quotes");
      // The value runs to the next quote, over as many lines as it takes.
      const start = i + 1;
      let text = rest.slice(1);
      let close = text.indexOf("'");
      while (close < 0) {
        if (++i >= lines.length)
          throw new Error(`invalid environment variable format starting at line ${start}: unclosed single quote`);
        text += `\n${lines[i]}`;
        close = text.indexOf("'");
      }
      value = text.slice(0, close);
      const after = text.slice(close + 1).trim();
      if (after !== "" && !after.startsWith("#")) throw invalid(i + 1, "unexpected content after closing quote");
    }
    if (name === key) return value;
  }
  return "";
}
