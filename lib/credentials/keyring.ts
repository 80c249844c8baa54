import type { DockerConfig, DockerConfigEntry } from "./docker-config.js";

// The kubelet's credential keyring (kubernetes/kubernetes pkg/credentialprovider/keyring.go):
// registry keys normalised to host[:port][/path], kept reverse-sorted so the most specific key
// is tried first, and matched to an image name part by part with globs in the host.

/** An entry with where it came from: `secret "regcred"`, `--authfile /ci/auth.json`. */
export interface TrackedEntry extends DockerConfigEntry {
  source: string;
}

/** A keyring's match: the entry and the normalised key it was filed under. */
export interface KeyringMatch {
  key: string;
  entry: TrackedEntry;
}

const DEFAULT_REGISTRY_HOST = "index.docker.io";

export class Keyring {
  readonly #entries = new Map<string, TrackedEntry[]>();
  readonly #hubKeys: readonly string[];
  #index: string[] = [];

  /**
   * `hubKeys`: the keys a Docker Hub image falls back to when no key matches it; the kubelet's
   * is `index.docker.io` alone. An auth file written by `podman login` files Docker Hub under
   * `docker.io`, so the auth file's keyring adds that.
   */
  constructor(options: { hubKeys?: readonly string[] } = {}) {
    this.#hubKeys = options.hubKeys ?? [DEFAULT_REGISTRY_HOST];
  }

  /** Files each entry of `config` under its normalised key; an entry whose key is no URL is skipped, as the kubelet does. */
  add(config: DockerConfig, source: string): void {
    for (const [registry, entry] of config) {
      const key = normaliseRegistryKey(registry);
      if (key === undefined) continue;
      const list = this.#entries.get(key) ?? [];
      list.push({ ...entry, source });
      this.#entries.set(key, list);
    }
    // Go's sort.Reverse(sort.StringSlice): byte order, so "quay.io/coreos" comes before "quay.io".
    this.#index = [...this.#entries.keys()].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  }

  /** The entries for `image`, most specific key first; Docker Hub images fall back to `index.docker.io`. */
  lookup(image: string): KeyringMatch[] {
    const matches: KeyringMatch[] = [];
    for (const key of this.#index) {
      if (urlsMatch(key, image)) for (const entry of this.#entries.get(key) ?? []) matches.push({ key, entry });
    }
    if (matches.length > 0 || !isDefaultRegistryMatch(image)) return matches;
    return this.#hubKeys.flatMap((key) => (this.#entries.get(key) ?? []).map((entry) => ({ key, entry })));
  }
}

/**
 * The keyring's key for a registry as written in a docker config: the scheme dropped (https://
 * assumed), a `/v1/` or `/v2/` prefix of the path dropped, `host[:port]` plus what path remains.
 * Undefined when Go's url.Parse would refuse it.
 */
export function normaliseRegistryKey(registry: string): string | undefined {
  const withScheme =
    registry.startsWith("https://") || registry.startsWith("http://") ? registry : `https://${registry}`;
  const url = parseUrl(withScheme.slice(withScheme.indexOf("://") + 3));
  if (!url) return undefined;
  let path = url.path;
  // Docker's ResolveAuthConfig treats /v1/ and /v2/ as the bare host.
  if (path.startsWith("/v2/") || path.startsWith("/v1/")) path = path.slice(3);
  return path.length > 0 && path !== "/" ? url.host + path : url.host;
}

/**
 * The key under which docker's config.json must hold the credentials for `image`: its registry
 * host, as docker looks credentials up by host alone (never by the keyring key that matched,
 * which may carry a path or a glob), and for Docker Hub the key docker itself writes.
 */
export function toDockerConfigKey(image: string): string {
  // Docker's own reference rule (distribution/reference splitDockerDomain), which unlike the
  // kubelet's counts `localhost` and a name with upper case as a registry host.
  const slash = image.indexOf("/");
  const first = slash < 0 ? "" : image.slice(0, slash);
  const isHost = /[.:]/.test(first) || first === "localhost" || first !== first.toLowerCase();
  return !isHost || first === "docker.io" || first === "index.docker.io" ? "https://index.docker.io/v1/" : first;
}

/** Whether the kubelet would pull `image` from Docker Hub, judging by its name alone. */
export function isDefaultRegistryMatch(image: string): boolean {
  const slash = image.indexOf("/");
  const first = slash < 0 ? image : image.slice(0, slash);
  if (first.length === 0) return false;
  if (slash < 0) return true;
  if (first === "docker.io" || first === "index.docker.io") return true;
  return !/[.:]/.test(first);
}

/**
 * Whether `target` (an image name) matches `glob` (a keyring key): same port, same number of
 * host parts each matching its glob part (a `*` never spans a dot), and the key's path a prefix
 * of the image's. Wildcards in ports and paths are not supported, as in the kubelet.
 */
export function urlsMatch(glob: string, target: string): boolean {
  const globUrl = parseUrl(glob);
  const targetUrl = parseUrl(target);
  if (!globUrl || !targetUrl) return false;
  const [globParts, globPort] = splitHost(globUrl.host);
  const [targetParts, targetPort] = splitHost(targetUrl.host);
  if (globPort !== targetPort || globParts.length !== targetParts.length) return false;
  if (!targetUrl.path.startsWith(globUrl.path)) return false;
  return globParts.every((part, i) => matchGlob(part, targetParts[i] ?? ""));
}

interface SchemelessUrl {
  host: string;
  path: string;
}

// What Go's url.Parse("https://" + text) yields for Host and Path; undefined where it fails.
function parseUrl(text: string): SchemelessUrl | undefined {
  // eslint-disable-next-line no-control-regex -- Go's url.Parse refuses control characters; so must we.
  if (/[\x00-\x1f\x7f]/.test(text)) return undefined;
  const end = text.search(/[/?#]/);
  const authority = end < 0 ? text : text.slice(0, end);
  const rest = end < 0 ? "" : text.slice(end);
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (!isValidHost(host)) return undefined;
  const pathEnd = rest.search(/[?#]/);
  const rawPath = pathEnd < 0 ? rest : rest.slice(0, pathEnd);
  try {
    return { host, path: decodeURIComponent(rawPath) };
  } catch {
    // A malformed %-escape: Go's url.Parse refuses it too, and such a key matches no image.
    return undefined;
  }
}

// Go rejects a port that is not all digits, a bracketed IPv6 address with no closing bracket,
// and a host with a character it would have to escape (a space, `{`, `|`, `\`, a control character).
function isValidHost(host: string): boolean {
  // eslint-disable-next-line no-control-regex -- as above: characters Go would have to escape.
  if (/[\x00-\x20\x7f{}|\\^`]/.test(host)) return false;
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    if (close < 0) return false;
    const after = host.slice(close + 1);
    return after === "" || /^:\d*$/.test(after);
  }
  const colon = host.lastIndexOf(":");
  return colon < 0 || /^\d*$/.test(host.slice(colon + 1));
}

// Go's net.SplitHostPort, the whole host with no port where it fails.
function splitHost(hostPort: string): [parts: string[], port: string] {
  let host = hostPort;
  let port = "";
  if (hostPort.startsWith("[")) {
    const close = hostPort.indexOf("]");
    if (hostPort[close + 1] === ":") {
      host = hostPort.slice(1, close);
      port = hostPort.slice(close + 2);
    }
  } else {
    const colon = hostPort.indexOf(":");
    if (colon >= 0 && colon === hostPort.lastIndexOf(":")) {
      host = hostPort.slice(0, colon);
      port = hostPort.slice(colon + 1);
    }
  }
  return [host.split("."), port];
}

/** Go's path/filepath.Match for one host part: `*`, `?`, `[...]` (`^` negates), `\` escapes; a bad pattern matches nothing. */
export function matchGlob(pattern: string, name: string): boolean {
  const regex = globToRegExp(pattern);
  return regex !== undefined && regex.test(name);
}

function globToRegExp(pattern: string): RegExp | undefined {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else if (c === "\\") {
      const next = pattern[++i];
      if (next === undefined) return undefined;
      source += escapeRegExp(next);
    } else if (c === "[") {
      const close = findClassEnd(pattern, i + 1);
      if (close < 0) return undefined;
      const body = pattern.slice(i + 1, close);
      const negated = body.startsWith("^");
      const items = negated ? body.slice(1) : body;
      if (items.length === 0) return undefined;
      source += `[${negated ? "^/" : ""}${items.replace(/[\]\\^]/g, (m) => `\\${m}`)}]`;
      i = close;
    } else source += escapeRegExp(c);
  }
  return new RegExp(`^${source}$`, "s");
}

function findClassEnd(pattern: string, from: number): number {
  for (let i = from; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]" && i > from) return i;
  }
  return -1;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
