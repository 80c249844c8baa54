// Matching `image inspect` results back to the references podrun asked for. Engines name the
// same image differently: docker keeps `busybox:latest` as written, podman and nerdctl store
// `docker.io/library/busybox:latest`, and podman names a locally built or loaded short name
// `localhost/<name>`. Comparing fully qualified forms makes all of these meet.
import { parseImageReference } from "./image-reference.js";

/**
 * The forms under which an engine may list `ref`: its fully qualified name (docker.io and
 * library/ added, `:latest` when neither tag nor digest), plus podman's `localhost/` form for a
 * short name. An image ID (`sha256:…`) is returned as is.
 */
export function listImageNameForms(ref: string): string[] {
  if (/^(?:sha256:)?[a-f0-9]{64}$/.test(ref)) return [ref.startsWith("sha256:") ? ref : `sha256:${ref}`];
  const parsed = parseImageReference(ref);
  if (!parsed.ok) return [ref];
  const { domain, path, tag, digest } = parsed.reference;
  const suffix = `${tag !== undefined ? `:${tag}` : digest === undefined ? ":latest" : ""}${digest !== undefined ? `@${digest}` : ""}`;
  const forms = [`${qualifyName(domain, path)}${suffix}`];
  if (domain === undefined) forms.push(`localhost/${path}${suffix}`);
  // `repo:tag@sha256:…` is listed under its digest only (a RepoDigest).
  if (tag !== undefined && digest !== undefined) forms.push(`${qualifyName(domain, path)}@${digest}`);
  return forms;
}

/**
 * The fully qualified names an inspected image answers to: each RepoTag as is, and each
 * RepoDigest (`repo@sha256:…`), all qualified the same way as listImageNameForms.
 */
export function qualifyInspectNames(names: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const name of names) {
    out.add(name);
    for (const form of listImageNameForms(name)) out.add(form);
  }
  return out;
}

function qualifyName(domain: string | undefined, path: string): string {
  if (domain === undefined || domain === "docker.io" || domain === "index.docker.io") {
    return `docker.io/${path.includes("/") ? path : `library/${path}`}`;
  }
  return `${domain}/${path}`;
}
