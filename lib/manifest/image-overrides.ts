import { UsageError } from "../errors.js";
import { parseImageReference } from "../runtime/image-reference.js";
import { asArray, asObject, asString, type RawObject } from "./rules/raw.js";

// `--image NAME=REF` (and $PODRUN_IMAGES, a comma list): the image a CI job built, put in place of
// the one the manifests name, with kustomize's `images:` semantics
// (https://github.com/kubernetes-sigs/kustomize/blob/master/api/filters/imagetag/updater.go):
// NAME matches a container's image by its repository, as written, whatever its tag or digest;
// REF gives a new name (the tag or digest written is kept), a new name with a tag or a digest
// (which replaces both), or only `:TAG` or `@DIGEST`. It applies to every container of every
// Pod and pod template, before the manifests' rules run, so that the image that will run is the
// one checked, hashed, pulled and shown by `--dry-run`.

export interface ImageOverride {
  /** As given, for messages: `ghcr.io/org/app=app:ci`. */
  flag: string;
  /** The repository it matches: `ghcr.io/org/app`. */
  name: string;
  newName?: string;
  tag?: string;
  digest?: string;
}

const FORMAT = "expected NAME=REF: NAME an image's repository, REF a new name, NAME:TAG, NAME@DIGEST, :TAG or @DIGEST";

/** One `--image` value; a UsageError (exit 2) names the flag and what is wrong. */
export function parseImageOverride(flag: string): ImageOverride {
  const fail = (why: string): never => {
    throw new UsageError(`invalid --image ${JSON.stringify(flag)}: ${why}`);
  };
  const equals = flag.indexOf("=");
  if (equals <= 0 || equals === flag.length - 1) return fail(FORMAT);
  const name = flag.slice(0, equals);
  const ref = flag.slice(equals + 1);
  // Any repository as written, even one no reference grammar takes (a placeholder such as
  // `gcr.io/<project>/app`, which is what an override is for); never a tag or a digest.
  const written = splitRepository(name);
  if (/\s/.test(name) || written.tag !== undefined || written.digest !== undefined)
    return fail("NAME must be a repository, without tag, digest or spaces");
  const override: ImageOverride = { flag, name };
  const split = splitRepository(ref);
  if (split.repository !== "") override.newName = split.repository;
  if (split.tag !== undefined) override.tag = split.tag;
  if (split.digest !== undefined) override.digest = split.digest;
  if (override.newName === undefined && override.tag === undefined && override.digest === undefined)
    return fail(FORMAT);
  // The image it makes must parse: checked on a stand-in for the name it keeps.
  const check = parseImageReference(join(override.newName ?? name, override.tag, override.digest));
  if (!check.ok) fail(`REF: ${check.reason}`);
  return override;
}

/** `--image` values, then those of $PODRUN_IMAGES (comma-separated): a flag for a NAME given by both wins. */
export function parseImageOverrides(flags: readonly string[], env: string | undefined): ImageOverride[] {
  const fromEnv = (env ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  const overrides = [...flags, ...fromEnv].map(parseImageOverride);
  const seen = new Set<string>();
  return overrides.filter((override) => !seen.has(override.name) && seen.add(override.name));
}

/** The image after the overrides, and the override that made it (the first whose name matches). */
export function overrideImage(
  image: string,
  overrides: readonly ImageOverride[],
): { image: string; by?: ImageOverride } {
  const written = splitRepository(image);
  const by = overrides.find((override) => override.name === written.repository);
  if (!by) return { image };
  // A new tag or digest replaces both of the written ones; a new name alone keeps them.
  const replaced = by.tag !== undefined || by.digest !== undefined;
  return {
    image: join(
      by.newName ?? written.repository,
      replaced ? by.tag : written.tag,
      replaced ? by.digest : written.digest,
    ),
    by,
  };
}

/**
 * Puts the overrides into every container of a pod spec (a Pod's, or a template's), in place;
 * returns the overrides that matched an image.
 */
export function overridePodSpecImages(spec: RawObject, overrides: readonly ImageOverride[]): Set<ImageOverride> {
  const used = new Set<ImageOverride>();
  for (const list of ["initContainers", "containers", "ephemeralContainers"]) {
    for (const item of asArray(spec[list]) ?? []) {
      const container = asObject(item);
      const image = asString(container?.image);
      if (!container || image === undefined) continue;
      const result = overrideImage(image, overrides);
      if (!result.by) continue;
      container.image = result.image;
      used.add(result.by);
    }
  }
  return used;
}

/** `repo[:tag][@digest]` as written: the digest after the last `@`, the tag after a `:` past the last `/`. */
function splitRepository(image: string): { repository: string; tag?: string; digest?: string } {
  const at = image.lastIndexOf("@");
  const digest = at >= 0 ? image.slice(at + 1) : undefined;
  const rest = at >= 0 ? image.slice(0, at) : image;
  const colon = rest.lastIndexOf(":");
  const tagged = colon > rest.lastIndexOf("/");
  return {
    repository: tagged ? rest.slice(0, colon) : rest,
    ...(tagged && { tag: rest.slice(colon + 1) }),
    ...(digest !== undefined && { digest }),
  };
}

function join(repository: string, tag: string | undefined, digest: string | undefined): string {
  return `${repository}${tag !== undefined ? `:${tag}` : ""}${digest !== undefined ? `@${digest}` : ""}`;
}
