// Classifies a failed pull from the runtime's stderr, most specific first: engine down, rate
// limit, auth, not found, unavailable, ambiguous (the engines' texts are captured in
// test/fixtures/pull-errors/, each fixture saying how). Engines give only text, so matching text
// is all there is (the kubelet does the same with CRI errors). The same patterns serve docker, podman and nerdctl/containerd.
import { PodrunError } from "../errors.js";

export type PullReason = "ErrImagePull" | "RegistryUnavailable" | "RuntimeUnavailable";
export type PullErrorKind =
  "not-found" | "unauthorized" | "not-found-or-unauthorized" | "unavailable" | "rate-limited" | "engine-down" | "other";

export interface PullClassification {
  reason: PullReason;
  kind: PullErrorKind;
  /** One line, ready to print. */
  message: string;
}

export interface ClassifyOptions {
  image: string;
  /** Whether podrun gave the runtime credentials (imagePullSecrets, --authfile) for this pull. */
  credentialsGiven: boolean;
  /**
   * Where the credentials that were tried came from (`secret "regcred"`), for the hint: never a
   * value. Empty or absent with credentials given: the hint names none.
   */
  credentialSources?: readonly string[];
  /** For the login hint; default docker. */
  runtime?: string;
}

// A bare status code counts only as a word of its own: not in a port (`:500`), an address,
// a path, a tag or a digest.
const code = (pattern: string) => `(?<![\\w.:/@-])${pattern}(?![\\w.:/@-])`;

const ENGINE_DOWN =
  /cannot connect to the docker daemon|is the docker daemon running|error during connect|containerd\.sock.*(?:no such file|connection refused)|cannot access containerd socket|cannot connect to podman|unable to connect to podman/i;
const RATE_LIMITED = new RegExp(`toomanyrequests|too many requests|${code("429")}`, "i");
const UNAUTHORIZED = new RegExp(
  `unauthorized|authentication required|no basic auth credentials|incorrect username or password|${code("401")}|${code("403")} forbidden`,
  "i",
);
const NOT_FOUND =
  /manifest unknown|manifest for .* not found|repository .* not found|: not found\b|name unknown|no such image/i;
const UNAVAILABLE = new RegExp(
  "no such host|i/o timeout|connection refused|connection reset|client\\.timeout exceeded|tls handshake timeout|" +
    `server misbehaving|network is unreachable|no route to host|x509:|http response to https client|${code("5\\d\\d")}`,
  "i",
);
// Docker Hub answers this for a missing repository and for a private one alike; a registry's
// DENIED error code reaches docker and podman as a bare `denied`.
const AMBIGUOUS =
  /pull access denied|may require 'docker login'|may require authorization|insufficient_scope|requested access to the resource is denied|(?:^|: )denied$/im;

export function classifyPullError(stderr: string, options: ClassifyOptions): PullClassification {
  const errors = extractErrorLines(stderr);
  const text = errors.join("\n");
  const detail = reduceErrorLine(errors.at(-1) ?? "") || `pull of ${options.image} failed`;

  if (ENGINE_DOWN.test(text)) return { reason: "RuntimeUnavailable", kind: "engine-down", message: detail };
  if (RATE_LIMITED.test(text)) return { reason: "ErrImagePull", kind: "rate-limited", message: detail };
  if (UNAUTHORIZED.test(text)) return unauthorized(detail, options);
  if (NOT_FOUND.test(text)) return { reason: "ErrImagePull", kind: "not-found", message: detail };
  if (UNAVAILABLE.test(text)) {
    const message = `image pull failed for ${options.image} because the registry is unavailable: ${detail}`;
    return { reason: "RegistryUnavailable", kind: "unavailable", message };
  }
  if (AMBIGUOUS.test(text)) {
    // The text cannot tell a missing repository from a private one; with credentials given,
    // it is reported as the credentials being refused: the first thing such a user must check.
    if (options.credentialsGiven) return unauthorized(detail, options);
    return { reason: "ErrImagePull", kind: "not-found-or-unauthorized", message: detail };
  }
  return { reason: "ErrImagePull", kind: "other", message: detail };
}

function unauthorized(detail: string, options: ClassifyOptions): PullClassification {
  const login = `${options.runtime ?? "docker"} login ${registryOf(options.image)}`;
  const sources = options.credentialSources ?? [];
  const hint = !options.credentialsGiven
    ? `no credentials for this registry: add an imagePullSecret, pass --authfile, or run \`${login}\``
    : sources.length === 0
      ? "the registry refused the credentials from imagePullSecrets: check them"
      : `the registry refused the credentials from ${formatList(sources)}: check ${sources.length === 1 ? "it" : "them"}`;
  return { reason: "ErrImagePull", kind: "unauthorized", message: `${detail} (${hint})` };
}

/** A pull that failed, classified as the kubelet would report it (exit 1, like any PodrunError). */
export class PullError extends PodrunError {
  declare readonly reason: PullReason;
  readonly kind: PullErrorKind;
  /**
   * The engine's stderr that was classified, credentials already scrubbed from it: a caller that
   * tried several credentials classifies the last one again to name them all.
   */
  readonly stderr: string;
  constructor(
    readonly image: string,
    classification: PullClassification,
    options?: { cause?: unknown; stderr?: string },
  ) {
    super(
      classification.reason,
      classification.message,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.kind = classification.kind;
    this.stderr = options?.stderr ?? "";
  }
}

const LOGRUS = /(?:^|\s)level=(\w+) msg="((?:[^"\\]|\\.)*)"/;
const LOGRUS_SHORT = /^(FATA|ERRO|WARN|INFO|DEBU)\[[^\]]*\]\s*(.*)$/;

/**
 * The lines that carry the error: logrus errors (not warnings: podman's retry warnings repeat the
 * error, nerdctl warns about unrelated things), `Error…` lines, docker's daemon-down sentence.
 * Progress (`Trying to pull…`, nerdctl's `resolving |--|`) is dropped. Falls back to all lines.
 */
function extractErrorLines(stderr: string): string[] {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const errors: string[] = [];
  for (const line of lines) {
    const logrus = LOGRUS.exec(line);
    if (logrus) {
      if (logrus[1] === "fatal" || logrus[1] === "error") errors.push(unescapeLogrus(logrus[2] ?? ""));
      continue;
    }
    const short = LOGRUS_SHORT.exec(line);
    if (short) {
      if (short[1] === "FATA" || short[1] === "ERRO") errors.push(short[2] ?? "");
      continue;
    }
    if (/^(?:Error|docker:)|^cannot connect|^error during connect/i.test(line)) errors.push(line);
  }
  return errors.length > 0 ? errors : lines.filter((line) => !/^Trying to pull |resolving\s+\|/.test(line));
}

// logrus quotes msg as a Go string: `\"` for a quote, `\n` for a line break (kept on one line).
function unescapeLogrus(msg: string): string {
  return msg.replace(/\\(.)/g, (_, c: string) => (c === "n" ? " " : c === "t" ? "\t" : c));
}

/** One line without decoration: engine prefixes and trailing hints go. */
export function reduceErrorLine(line: string): string {
  return line
    .replace(/^docker:\s*/i, "")
    .replace(/^Error response from daemon:\s*/i, "")
    .replace(/^Error:\s*/, "")
    .replace(/\.?\s*(?:Run|See) '[^']*--help'.*$/, "")
    .trim();
}

// `a`, `a and b`, `a, b and c`.
function formatList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** The registry part of a reference, for the login hint (`docker.io` for Docker Hub names). */
function registryOf(image: string): string {
  const slash = image.indexOf("/");
  const first = slash < 0 ? "" : image.slice(0, slash);
  return first === "localhost" || /[.:]/.test(first) ? first : "docker.io";
}
