import { UsageError } from "../errors.js";
import { formatRef, ownerOf } from "../kinds/workload-ref.js";
import { findPods } from "../pod/status/find-pods.js";
import { openEngine } from "./engine-command.js";

// `podrun completion bash|zsh|fish`: a script that asks podrun itself what may come next
// (`podrun __complete WORD… CURRENT`), as cobra's completions ask kubectl: the commands, their
// flags, and the pods and workloads the engine holds now (for the commands that take them). The
// answer is computed here (completeWords, pure) from the commands' shapes, which lib/cli.ts reads
// off its own declarations, so that a new flag completes without a line here.

/** A command as completion sees it: its names, its flags, its subcommands. */
export interface CommandShape {
  name: string;
  aliases: readonly string[];
  /** `--long` and `-s` spellings. */
  flags: readonly string[];
  subcommands: readonly CommandShape[];
}

/** The commands whose arguments are pods or workloads (TYPE/NAME). */
const TAKES_PODS = new Set([
  "ps",
  "logs",
  "exec",
  "describe",
  "down",
  "delete",
  "port-forward",
  "wait",
  "events",
  "status",
]);

/**
 * What may complete `current` after `typed` (the words before it, the command's name first):
 * a subcommand, a flag of the command reached, or one of `names` (pods, `TYPE/NAME`, asked only
 * then) where the command takes pods. Empty: let the shell complete file names.
 */
export async function completeWords(
  shapes: readonly CommandShape[],
  typed: readonly string[],
  current: string,
  names: () => Promise<readonly string[]>,
): Promise<string[]> {
  let level = shapes;
  let command: CommandShape | undefined;
  for (const word of typed) {
    const next = level.find((shape) => shape.name === word || shape.aliases.includes(word));
    if (!next) continue;
    command = next;
    level = next.subcommands;
  }
  const starting = (candidates: readonly string[]) =>
    [...new Set(candidates)].filter((c) => c.startsWith(current)).sort();
  if (current.startsWith("-")) return starting(command?.flags ?? ["--help", "--version"]);
  if (level.length > 0 && (command === undefined || command.subcommands.length > 0))
    return starting(level.map((shape) => shape.name));
  if (command && TAKES_PODS.has(command.name)) return starting(await names());
  return [];
}

/** The pods and workloads of a namespace, for completion; none when the engine does not answer. */
export async function podNamesForCompletion(namespace: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  try {
    const runtime = await openEngine({ runtimeRequestTimeout: "3s" }, env);
    const records = await findPods(runtime, { namespace });
    const owners = records.map((record) => ownerOf(record)).filter((owner) => owner !== undefined);
    return [...records.map((record) => record.name), ...owners.map(formatRef)];
  } catch {
    // No engine, or it is slow: completion offers nothing rather than an error in the prompt.
    return [];
  }
}

/** The words after `-n`/`--namespace`, else "default". */
export function namespaceOf(words: readonly string[]): string {
  for (let i = 0; i < words.length - 1; i++) if (words[i] === "-n" || words[i] === "--namespace") return words[i + 1]!;
  const joined = words.find((word) => word.startsWith("--namespace="));
  return joined ? joined.slice("--namespace=".length) : "default";
}

/** The script that `source <(podrun completion SHELL)` loads. */
export function completionScript(shell: string): string {
  switch (shell) {
    case "bash":
      return `# podrun completion for bash: source <(podrun completion bash)
_podrun() {
  local IFS=$'\\n'
  COMPREPLY=($(podrun __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _podrun podrun
`;
    case "zsh":
      return `#compdef podrun
# podrun completion for zsh: source <(podrun completion zsh)
_podrun() {
  local -a candidates
  candidates=("\${(@f)$(podrun __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if (( \${#candidates[@]} )) && [[ -n "\${candidates[1]}" ]]; then compadd -a candidates; else _files; fi
}
compdef _podrun podrun
`;
    case "fish":
      return `# podrun completion for fish: podrun completion fish | source
complete -c podrun -a '(podrun __complete (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null)'
`;
    default:
      throw new UsageError(`unsupported shell type "${shell}": bash, zsh or fish`);
  }
}
