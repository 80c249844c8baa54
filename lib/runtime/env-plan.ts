// How a container's environment reaches the CLI without any value on its command line (values
// may be secrets, and argv is world-readable in /proc). Most go in an env file; a value the
// file cannot carry exactly (a line break, or what the dialect's parser would alter) is passed as
// `-e NAME`, which makes the CLI copy NAME from its own environment: podrun sets it on the child.
import { PodrunError } from "../errors.js";
import type { Dialect } from "./dialects.js";

export interface EnvPlan {
  /** The env file's content, or undefined when every variable goes by name. */
  fileContent?: string;
  /** Names passed as `-e NAME`, in order. */
  byName: string[];
  /** Values for those names, to add to the CLI child's environment (runCommand's `env`). */
  childEnv: Record<string, string>;
}

/**
 * Variables the CLIs (or the dynamic loader, or the Go runtime) read for themselves: setting one
 * on the CLI's process to pass it on would change how the CLI itself behaves.
 */
const CLI_OWN_NAME =
  /^(?:PATH|HOME|USER|TMPDIR|TMP|SHELL|NOTIFY_SOCKET|REGISTRY_AUTH_FILE|STORAGE_DRIVER|STORAGE_OPTS|GODEBUG|GOGC|GOMAXPROCS|GOMEMLIMIT|GOTRACEBACK|SSL_CERT_FILE|SSL_CERT_DIR|(?:HTTPS?|NO|ALL)_PROXY|(?:https?|no|all)_proxy|(?:DOCKER|CONTAINERS?|_CONTAINERS|CONTAINERD|NERDCTL|BUILDKIT|PODMAN|XDG|LD)_.*)$/;

// The first line is a comment so that docker's removal of a UTF-8 byte-order mark on line 1
// never touches a value.
const FILE_HEADER = "# podrun: container environment (removed right after create)\n";

// The CLIs read an env file with Go's bufio.Scanner, whose default buffer (64 KiB) must hold a
// whole line and its line break: a longer line fails the create ("token too long").
const ENV_FILE_LINE_BYTES = 64 * 1024 - 1;
// Linux refuses to exec a process any one of whose environment strings (`NAME=value` and its NUL)
// is longer than MAX_ARG_STRLEN (32 pages): past that, no channel can carry the value.
const ENV_STRING_BYTES = 32 * 4096 - 1;

/**
 * Splits `env` between the env file and `-e NAME`. Later duplicates win, as in Kubernetes.
 * Throws CreateContainerConfigError for what no channel can carry exactly.
 */
export function planEnv(dialect: Dialect, env: readonly { name: string; value: string }[]): EnvPlan {
  const last = new Map<string, string>();
  for (const { name, value } of env) {
    last.delete(name); // keep the position of the last occurrence
    last.set(name, value);
  }
  const lines: string[] = [];
  const plan: EnvPlan = { byName: [], childEnv: {} };
  for (const [name, value] of last) {
    if (value.includes("\0") || name.includes("\0")) {
      throw new PodrunError(
        "CreateContainerConfigError",
        `environment variable ${JSON.stringify(name)}: a value cannot contain a NUL character`,
      );
    }
    if (fitsEnvFile(dialect, name, value)) {
      lines.push(`${name}=${value}\n`);
      continue;
    }
    if (Buffer.byteLength(`${name}=${value}`) > ENV_STRING_BYTES) {
      throw new PodrunError(
        "CreateContainerConfigError",
        `environment variable ${name}: its value is ${Buffer.byteLength(value)} bytes, longer than ${dialect.name} can receive ` +
          `(an env-file line holds ${ENV_FILE_LINE_BYTES} bytes, a process's environment string ${ENV_STRING_BYTES}): put it in a volume instead`,
      );
    }
    if (CLI_OWN_NAME.test(name)) {
      throw new PodrunError(
        "CreateContainerConfigError",
        `environment variable ${name}: ${dialect.name} cannot receive this value through an env file ` +
          `(${describeProblem(name, value)}), and ${name} is read by the ${dialect.name} CLI itself, so podrun cannot pass it ` +
          `through the CLI's environment either: change the value, or set it from inside the container`,
      );
    }
    plan.byName.push(name);
    plan.childEnv[name] = value;
  }
  if (lines.length > 0) plan.fileContent = FILE_HEADER + lines.join("");
  return plan;
}

/**
 * A name must survive the file too: parsers trim leading white space off a line, treat `#` at its
 * start as a comment, and docker rejects white space in a name. And the line must fit the parser's buffer.
 */
function fitsEnvFile(dialect: Dialect, name: string, value: string): boolean {
  return (
    /^[^\s#=][^\s=]*$/.test(name) &&
    dialect.envFileKeepsValue(value) &&
    Buffer.byteLength(`${name}=${value}`) <= ENV_FILE_LINE_BYTES
  );
}

function describeProblem(name: string, value: string): string {
  if (/[\r\n]/.test(value)) return "it contains a line break";
  if (Buffer.byteLength(`${name}=${value}`) > ENV_FILE_LINE_BYTES) return "it is longer than an env-file line may be";
  return "its env-file parser would alter it";
}

/** The `create` arguments for a plan; `envFilePath` is where the caller wrote `fileContent`. */
export function formatEnvArgs(plan: EnvPlan, envFilePath: string | undefined): string[] {
  const args: string[] = [];
  if (plan.fileContent !== undefined && envFilePath !== undefined) args.push("--env-file", envFilePath);
  for (const name of plan.byName) args.push("-e", name);
  return args;
}
