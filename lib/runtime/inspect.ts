// Reading `image inspect` and `container inspect` output (pure). The three CLIs print Docker-shaped
// JSON, with differences handled here:
// - image Id: docker and nerdctl `sha256:<hex>`, podman bare `<hex>`;
// - container Name: docker `/name`, podman and nerdctl `name`;
// - image of a container: docker and podman `Config.Image` (as written), podman also `ImageName`;
//   nerdctl has no Config.Image and puts the name in the top-level `Image` (an ID elsewhere);
// - joined network: docker and podman `HostConfig.NetworkMode: "container:<id>"`; nerdctl has no
//   NetworkMode and records `["container:<id>"]` in its `nerdctl/networks` label instead;
// - labels: podman gives `null` for none; nerdctl mixes its own `nerdctl/…` labels in.
import type { Dialect } from "./dialects.js";
import { listImageNameForms, qualifyInspectNames } from "./image-names.js";
import { LABEL_RESTART_COUNT, type ContainerState, type ImageInfo } from "./types.js";

type Json = Record<string, unknown>;

/** Every JSON object in `text`: one array, several arrays or objects in a row, or one per line. */
export function parseJsonObjects(text: string): Json[] {
  const out: Json[] = [];
  for (const chunk of splitJsonValues(text)) {
    let value: unknown;
    try {
      value = JSON.parse(chunk);
    } catch {
      continue; // a stray non-JSON line (a warning) between the values
    }
    for (const item of Array.isArray(value) ? value : [value]) if (isObject(item)) out.push(item);
  }
  return out;
}

// Splits concatenated top-level JSON values by bracket depth, skipping brackets inside strings.
function splitJsonValues(text: string): string[] {
  const chunks: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"' && depth > 0) inString = true;
    else if (c === "[" || c === "{") {
      // A value starts a line: a `[` inside a warning line (`WARN[0000] …`) is not JSON.
      if (depth === 0 && !startsLine(text, i)) continue;
      if (depth++ === 0) start = i;
    } else if ((c === "]" || c === "}") && depth > 0 && --depth === 0) chunks.push(text.slice(start, i + 1));
  }
  return chunks;
}

function startsLine(text: string, index: number): boolean {
  const lineStart = text.lastIndexOf("\n", index - 1) + 1;
  return text.slice(lineStart, index).trim() === "";
}

/** Maps inspected images back to the references as written; absent ones are left out. */
export function matchImages(
  dialect: Dialect,
  refs: readonly string[],
  images: readonly Json[],
): Map<string, ImageInfo> {
  const entries = images.map((image) => ({
    info: toImageInfo(dialect, image),
    names: qualifyInspectNames([
      ...strings(image["RepoTags"]),
      ...strings(image["RepoDigests"]),
      toImageInfo(dialect, image).id,
    ]),
  }));
  const found = new Map<string, ImageInfo>();
  refs.forEach((ref, index) => {
    const forms = listImageNameForms(ref);
    const byName = entries.find((entry) => forms.some((form) => entry.names.has(form)));
    // Engines print results in argument order, skipping absent ones: when all were found, the
    // position settles what naming cannot (podman's short-name resolution, for instance).
    const byPosition = entries.length === refs.length ? entries[index] : undefined;
    const entry = byName ?? byPosition;
    if (entry) found.set(ref, entry.info);
  });
  return found;
}

function toImageInfo(dialect: Dialect, image: Json): ImageInfo {
  const raw = typeof image["Id"] === "string" ? image["Id"] : "";
  const id = dialect.bareImageIds && /^[a-f0-9]{64}$/.test(raw) ? `sha256:${raw}` : raw;
  const size = typeof image["Size"] === "number" ? image["Size"] : 0;
  const user = text(object(image["Config"])["User"]) || undefined;
  return { id, size, user };
}

export interface InspectedContainer {
  state: ContainerState;
  /** The container whose network namespace this one joined (`container:<id>`), if any. */
  networkPeer?: string;
}

export function toContainerState(dialect: Dialect, c: Json): InspectedContainer {
  const state = object(c["State"]);
  const config = object(c["Config"]);
  const labels = stringMap(config["Labels"]);
  const network = object(c["NetworkSettings"]);
  const ip = text(network["IPAddress"]) || firstNetworkIp(network["Networks"]);
  const result: ContainerState = {
    id: text(c["Id"]),
    name: text(c["Name"]).replace(/^\//, ""),
    status: text(state["Status"]),
    running: state["Running"] === true,
    exitCode: typeof state["ExitCode"] === "number" ? state["ExitCode"] : 0,
    startedAt: normalizeTime(state["StartedAt"]),
    finishedAt: normalizeTime(state["FinishedAt"]),
    createdAt: normalizeTime(c["Created"]),
    restartCount:
      (typeof c["RestartCount"] === "number" ? c["RestartCount"] : 0) +
      (Number.parseInt(labels[LABEL_RESTART_COUNT] ?? "", 10) || 0),
    labels: dialect.internalLabelPrefix ? dropPrefixed(labels, dialect.internalLabelPrefix) : labels,
    image: text(config["Image"]) || text(c["ImageName"]) || text(c["Image"]),
  };
  if (ip) result.ip = ip;
  const volumes = namedVolumes(c["Mounts"]);
  if (volumes.length > 0) result.volumes = volumes;
  const peer = findNetworkPeer(object(c["HostConfig"])["NetworkMode"], labels["nerdctl/networks"]);
  return peer ? { state: result, networkPeer: peer } : { state: result };
}

// The three CLIs list mounts alike: `{ Type: "volume", Name, Destination, … }` for an engine volume.
function namedVolumes(mounts: unknown): string[] {
  if (!Array.isArray(mounts)) return [];
  return mounts
    .filter(
      (m): m is Json => isObject(m) && m["Type"] === "volume" && typeof m["Name"] === "string" && m["Name"] !== "",
    )
    .map((m) => m["Name"] as string);
}

/**
 * Containers that joined another's network namespace (docker, nerdctl) have no address of their
 * own: the pod's address is their peer's. These are the peers not already among `inspected`.
 */
export function listUnresolvedPeers(inspected: readonly InspectedContainer[]): string[] {
  const states = inspected.map((c) => c.state);
  const peers = inspected.filter((c) => !c.state.ip && c.networkPeer).map((c) => c.networkPeer!);
  return [...new Set(peers)].filter((peer) => !states.some((state) => isSameContainer(state, peer)));
}

/** The states of `inspected`, each joined container given its peer's address (from either list). */
export function fillPeerAddresses(
  inspected: readonly InspectedContainer[],
  peers: readonly ContainerState[],
): ContainerState[] {
  const all = [...inspected.map((c) => c.state), ...peers];
  return inspected.map(({ state, networkPeer }) => {
    if (state.ip || !networkPeer) return state;
    const ip = all.find((other) => isSameContainer(other, networkPeer))?.ip;
    return ip ? { ...state, ip } : state;
  });
}

// A reference to a container: its full ID, a unique prefix of it, or its name.
function isSameContainer(state: ContainerState, ref: string): boolean {
  return state.id === ref || state.name === ref || (ref.length >= 12 && state.id.startsWith(ref));
}

function findNetworkPeer(networkMode: unknown, nerdctlNetworks: string | undefined): string | undefined {
  const modes = [text(networkMode)];
  if (nerdctlNetworks) {
    try {
      modes.push(...strings(JSON.parse(nerdctlNetworks)));
    } catch {
      // not JSON: no peer to find
    }
  }
  const joined = modes.find((mode) => mode.startsWith("container:"));
  return joined?.slice("container:".length) || undefined;
}

function firstNetworkIp(networks: unknown): string {
  for (const endpoint of Object.values(object(networks))) {
    const ip = text(object(endpoint)["IPAddress"]);
    if (ip) return ip;
  }
  return "";
}

// Go's zero time means "never": the contract says "".
function normalizeTime(value: unknown): string {
  const time = text(value);
  return time === "" || time.startsWith("0001-01-01") ? "" : time;
}

function dropPrefixed(labels: Record<string, string>, prefix: string): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([key]) => !key.startsWith(prefix)));
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
const object = (value: unknown): Json => (isObject(value) ? value : {});
const text = (value: unknown): string => (typeof value === "string" ? value : "");
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
function stringMap(value: unknown): Record<string, string> {
  return Object.fromEntries(
    Object.entries(object(value)).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}
