import {
  checkManifests as checkWithKinds,
  loadManifests as loadWithKinds,
  type CheckOptions,
  type LoadOptions,
  type Manifest,
} from "../manifest/load-manifest.js";
import type { ManifestSource } from "../manifest/read-source.js";
import { KINDS } from "./table.js";

// The manifest reader (lib/manifest/load-manifest.ts) with podrun's kind table: what the commands read.

export async function loadManifests(paths: readonly string[], options: Partial<LoadOptions> = {}): Promise<Manifest> {
  return loadWithKinds(paths, { kinds: KINDS, ...options });
}

export function checkManifests(sources: readonly ManifestSource[], options: Partial<CheckOptions> = {}): Manifest {
  return checkWithKinds(sources, { kinds: KINDS, ...options });
}

/** Validates and defaults one manifest already read. */
export function checkManifest(source: ManifestSource): Manifest {
  return checkManifests([source]);
}
