import { PodrunError } from "../errors.js";

// The docker reference grammar of github.com/distribution/reference (v0.6, as vendored by the
// kubelet) and the kubelet's use of it (pkg/util/parsers, applyDefaultImageTag, SetDefaults_Container).
// Names are checked the way ParseNormalizedNamed checks them, but returned as written: podrun, like
// the kubelet, never rewrites `busybox` to `docker.io/library/busybox` and leaves short-name
// resolution to the runtime.

/** An image reference as written: `[domain/]path[:tag][@digest]`. */
export interface ImageReference {
  /** Only when the first component is a registry (has a `.` or `:`, is `localhost`, or has capitals). */
  domain?: string;
  path: string;
  tag?: string;
  digest?: string;
}

export type ParsedImageReference = { ok: true; reference: ImageReference } | { ok: false; reason: string };

const DEFAULT_DOMAIN = "docker.io";
const LEGACY_DEFAULT_DOMAIN = "index.docker.io";
const OFFICIAL_REPO_PREFIX = "library/";
const NAME_TOTAL_LENGTH_MAX = 255;
export const DEFAULT_IMAGE_TAG = "latest";

const ALPHANUMERIC = "[a-z0-9]+";
const SEPARATOR = "(?:[._]|__|[-]+)";
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN_NAME = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*`;
const IPV6_ADDRESS = "\\[(?:[a-fA-F0-9:]+)\\]";
const DOMAIN_AND_PORT = `(?:${DOMAIN_NAME}|${IPV6_ADDRESS})(?::[0-9]+)?`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}";
const NAME = `(?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME}`;

const REFERENCE_RE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const ANCHORED_NAME_RE = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${REMOTE_NAME})$`);
const IDENTIFIER_RE = /^[a-f0-9]{64}$/;

// go-digest v1.0.0 registers these three; the kubelet links all their hashes.
const DIGEST_HEX_LENGTHS: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
const GO_DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/** Parses an image reference; the reason of a failure is distribution's own error text. */
export function parseImageReference(image: string): ParsedImageReference {
  const fail = (reason: string): ParsedImageReference => ({ ok: false, reason });
  if (IDENTIFIER_RE.test(image)) {
    return fail(`invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`);
  }
  const split = splitDockerDomain(image);
  // Only the part before the first `:` is checked here; a capital elsewhere fails the grammar.
  const colon = split.remainder.indexOf(":");
  const remote = colon >= 0 ? split.remainder.slice(0, colon) : split.remainder;
  if (remote.toLowerCase() !== remote) {
    return fail(`invalid reference format: repository name (${remote}) must be lowercase`);
  }

  const normalized = `${split.domain}/${split.remainder}`;
  const match = REFERENCE_RE.exec(normalized);
  if (!match) {
    const lowered = normalized.toLowerCase();
    if (lowered !== normalized && REFERENCE_RE.test(lowered)) return fail("repository name must be lowercase");
    return fail(`invalid reference format${describeStrayCharacter(image)}`);
  }
  const [, name = "", tag, digest] = match;
  const path = ANCHORED_NAME_RE.exec(name)?.[2] ?? name;
  // The limit applies to the normalized path, so `library/` counts for a short name.
  if (path.length > NAME_TOTAL_LENGTH_MAX)
    return fail(`repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`);
  if (digest !== undefined) {
    const digestError = validateDigest(digest);
    if (digestError) return fail(digestError);
  }

  const suffixLength = (tag !== undefined ? tag.length + 1 : 0) + (digest !== undefined ? digest.length + 1 : 0);
  const written = image.slice(0, image.length - suffixLength);
  const reference: ImageReference = split.writtenDomain
    ? { domain: split.writtenDomain, path: written.slice(split.writtenDomain.length + 1) }
    : { path: written };
  if (tag !== undefined) reference.tag = tag;
  if (digest !== undefined) reference.digest = digest;
  return { ok: true, reference };
}

/**
 * `: character "<" at position 8 is not allowed`, for the first character that no part of a
 * reference may hold (distribution's error names none); "" when every character could appear and
 * only their order is wrong.
 */
function describeStrayCharacter(image: string): string {
  const index = [...image].findIndex((char) => !/[A-Za-z0-9._\-/:@[\]+]/.test(char));
  if (index < 0) return "";
  const char = [...image][index]!;
  return `: character ${JSON.stringify(char)} at position ${index + 1} is not allowed`;
}

interface DomainSplit {
  /** The domain used for checking: docker.io when none is written. */
  domain: string;
  remainder: string;
  /** The domain as written, if the first component is one. */
  writtenDomain?: string;
}

// Docker's rule for telling `registry/repo` from `namespace/repo` (splitDockerDomain).
function splitDockerDomain(name: string): DomainSplit {
  const slash = name.indexOf("/");
  if (slash < 0) return { domain: DEFAULT_DOMAIN, remainder: OFFICIAL_REPO_PREFIX + name };
  const first = name.slice(0, slash);
  const rest = name.slice(slash + 1);
  const isDomain = first === "localhost" || /[.:]/.test(first) || first.toLowerCase() !== first;
  if (!isDomain) return { domain: DEFAULT_DOMAIN, remainder: name };
  const domain = first === LEGACY_DEFAULT_DOMAIN ? DEFAULT_DOMAIN : first;
  const remainder = domain === DEFAULT_DOMAIN && !rest.includes("/") ? OFFICIAL_REPO_PREFIX + rest : rest;
  return { domain, remainder, writtenDomain: first };
}

// go-digest's Digest.Validate, after the grammar has accepted `algorithm:hex{32,}`.
function validateDigest(digest: string): string | undefined {
  const colon = digest.indexOf(":");
  const algorithm = digest.slice(0, colon);
  const encoded = digest.slice(colon + 1);
  const length = DIGEST_HEX_LENGTHS[algorithm];
  if (length === undefined)
    return GO_DIGEST_RE.test(digest) ? "unsupported digest algorithm" : "invalid checksum digest format";
  if (encoded.length !== length) return "invalid checksum digest length";
  return /^[a-f0-9]+$/.test(encoded) ? undefined : "invalid checksum digest format";
}

/**
 * The kubelet's applyDefaultImageTag: appends `:latest` when the image has neither tag nor
 * digest, and otherwise returns the image unchanged. Throws InvalidImageName when unparsable.
 */
export function applyDefaultImageTag(image: string): string {
  const parsed = parseImageReference(image);
  if (!parsed.ok) {
    const quoted = JSON.stringify(image);
    throw new PodrunError(
      "InvalidImageName",
      `Failed to apply default image tag ${quoted}: couldn't parse image name ${quoted}: ${parsed.reason}`,
    );
  }
  const { digest } = parsed.reference;
  const tag = resolveTag(parsed.reference);
  if (!digest && tag && !image.endsWith(`:${tag}`)) return `${image}:${tag}`;
  return image;
}

/**
 * SetDefaults_Container's imagePullPolicy: Always when the parser's tag is `latest` (written, or
 * implied by having neither tag nor digest), else IfNotPresent. An unparsable image gets
 * IfNotPresent, as the API server ignores the parse error here.
 */
export function defaultPullPolicy(image: string): "Always" | "IfNotPresent" {
  const parsed = parseImageReference(image);
  return parsed.ok && resolveTag(parsed.reference) === DEFAULT_IMAGE_TAG ? "Always" : "IfNotPresent";
}

// pkg/util/parsers.ParseImageName: the written tag, or `latest` if neither tag nor digest is written.
function resolveTag(reference: ImageReference): string | undefined {
  if (reference.tag !== undefined) return reference.tag;
  return reference.digest === undefined ? DEFAULT_IMAGE_TAG : undefined;
}
