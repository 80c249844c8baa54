import { errorFirstLine, errorMessage, PodrunError, type Reason, StateAccessError } from "../errors.js";
import { formatGoDuration } from "../events/go-duration.js";
import { EventReason, EventType } from "../events/reasons.js";
import type { EventRecorder } from "../events/recorder.js";
import type { InvolvedObject } from "../events/types.js";
import { applyDefaultImageTag, parseImageReference } from "../runtime/image-reference.js";
import type { RegistryCredential } from "../credentials/types.js";
import { listSecretForms } from "../credentials/scrub.js";
import type { ImageInfo } from "../runtime/types.js";
import type { BackoffStore } from "../state/backoff-store.js";
import { imagePullBackoffKey } from "../state/backoff.js";
import { shouldPullImage, type PullPolicy } from "./policy.js";
import { describePullFailure, type PullFailure } from "./pull-failure.js";
import type { ImagePuller } from "./puller.js";

// The kubelet's EnsureImageExists (pkg/kubelet/images/image_manager.go), step for step. Each branch records one event
// and returns the ref or throws one PodrunError whose reason is the kubelet's. Every message
// quotes the image as written (`"busybox"`, never `"busybox:latest"`).

export interface EnsureImageRequest {
  /** The container the image is for; its namespace and name also key the pull back-off. */
  object: InvolvedObject;
  /** The image as written in the manifest. */
  image: string;
  pullPolicy: PullPolicy;
  /** Local images from one `inspectImages` call for the whole pod, by defaulted ref. Absent means absent. */
  present: ReadonlyMap<string, ImageInfo>;
  /** Set when that inspect failed: policies that need it then fail with ImageInspectError. */
  inspectError?: unknown;
  /**
   * The registry credentials for this image, in the keyring's order; asked only when a pull is
   * needed (step 6). Absent or empty: the engine uses the user's own login. A throw fails the pull.
   */
  pullCredentials?: () => readonly RegistryCredential[];
}

export interface ImageManagerDeps {
  recorder: Pick<EventRecorder, "event">;
  backoff: BackoffStore;
  puller: ImagePuller;
  /** Wall-clock ms since the epoch: back-off outlives the process. */
  clock: () => number;
  /** A spinner while a pull runs (the console sink's startProgress); none by default. */
  startProgress?: (text: string) => { stop(): void };
  /**
   * `up --pull-policy`: the policy of every container of the run, in place of its own; the events
   * it changes say so (` (--pull-policy IfNotPresent)`).
   */
  pullPolicyOverride?: Exclude<PullPolicy, "Always">;
}

export interface ImageManager {
  /** Makes the image available as the policy says; returns the ref to create the container with. */
  ensureImageExists(request: EnsureImageRequest): Promise<string>;
}

export function createImageManager(deps: ImageManagerDeps): ImageManager {
  // Images this run pulled: a later container with IfNotPresent finds them, as on a node.
  const pulled = new Map<string, ImageInfo>();
  return { ensureImageExists: (request) => ensureImageExists(deps, pulled, request) };
}

/** Records one event and throws one PodrunError: the shape of every failure branch below. */
type Fail = (type: EventType, eventReason: string, reason: Reason, message: string, cause?: unknown) => never;

async function ensureImageExists(
  deps: ImageManagerDeps,
  pulled: Map<string, ImageInfo>,
  request: EnsureImageRequest,
): Promise<string> {
  const { object, image, present, inspectError, pullCredentials } = request;
  const { recorder, clock } = deps;
  const quoted = JSON.stringify(image);
  // The run's --pull-policy, where it changes the container's own: named in the events it decides.
  const overridden = deps.pullPolicyOverride !== undefined && deps.pullPolicyOverride !== request.pullPolicy;
  const pullPolicy = overridden ? deps.pullPolicyOverride! : request.pullPolicy;
  const because = overridden ? ` (--pull-policy ${pullPolicy})` : "";
  const fail: Fail = (type, eventReason, reason, message, cause) => {
    recorder.event(object, type, eventReason, message);
    throw new PodrunError(reason, message, cause === undefined ? undefined : { cause });
  };

  // 1. Default the tag; the error's message is already the kubelet's event text.
  const ref = defaultTag(image, fail);

  // 3–5. Presence, unless Always (which pulls whatever is local).
  if (pullPolicy !== "Always") {
    if (inspectError !== undefined) failInspect(inspectError, quoted, fail);
    const local = present.get(ref) ?? pulled.get(ref);
    if (!shouldPullImage(pullPolicy, local !== undefined)) {
      if (local === undefined) {
        return fail(
          EventType.Warning,
          EventReason.ErrImageNeverPull,
          "ErrImageNeverPull",
          `Container image ${quoted} is not present with pull policy of Never${because}`,
        );
      }
      recorder.event(
        object,
        EventType.Normal,
        EventReason.Pulled,
        `Container image ${quoted} already present on machine${because}`,
      );
      return ref;
    }
  }

  // 7. Back-off first: while in it, the registry is not contacted.
  const key = imagePullBackoffKey(object, image);
  const attemptMs = clock();
  await checkBackoff(deps.backoff, key, attemptMs, quoted, fail, (message) =>
    recorder.event(object, EventType.Normal, EventReason.BackOff, message),
  );

  // Always pulls even what is here: a failure then says so, and how to run the local image.
  const hint = pullPolicy === "Always" && present.has(ref) ? localImageHint(image) : "";
  return pullImage(deps, pulled, { object, ref, quoted, key, attemptMs, pullCredentials, hint });
}

/**
 * What a failed pull adds when the image is present on this machine and the policy forced the
 * pull: a CI job's freshly built image, named with `:latest` (or no tag), which the API server
 * defaults to Always.
 */
function localImageHint(image: string): string {
  const reference = parseImageReference(image);
  const latest =
    reference.ok && reference.reference.digest === undefined && (reference.reference.tag ?? "latest") === "latest";
  const why = latest
    ? "imagePullPolicy is Always (the default for an image tagged :latest or untagged)"
    : "imagePullPolicy is Always";
  return `; the image is present on this machine, but ${why}: set imagePullPolicy: IfNotPresent, use a tag other than latest, or run up --pull-policy IfNotPresent`;
}

/** One pull's inputs: the defaulted ref, the image as quoted in messages, and the back-off key and time it checked. */
interface PullAttempt extends Pick<EnsureImageRequest, "object" | "pullCredentials"> {
  ref: string;
  quoted: string;
  key: string;
  attemptMs: number;
  /** Said after the failure's message (localImageHint), in the event, the back-off and the error. */
  hint: string;
}

// The pull itself: Pulling, then Pulled or Failed; a failure advances the back-off (unless the engine is down).
async function pullImage(
  deps: ImageManagerDeps,
  pulled: Map<string, ImageInfo>,
  { object, ref, quoted, key, attemptMs, pullCredentials, hint }: PullAttempt,
): Promise<string> {
  const { recorder, clock } = deps;
  recorder.event(object, EventType.Normal, EventReason.Pulling, `Pulling image ${quoted}`);
  const progress = deps.startProgress?.(`Pulling image ${quoted}`);
  let credentials: readonly RegistryCredential[] = [];
  try {
    // 6. Credentials, once per pull and only for a pull.
    credentials = pullCredentials?.() ?? [];
    const result = await deps.puller.pull(ref, credentials);
    pulled.set(ref, result.imageInfo);
    recorder.event(
      object,
      EventType.Normal,
      EventReason.Pulled,
      `Successfully pulled image ${quoted} in ${formatGoDuration(result.pullMs)} (${formatGoDuration(result.totalMs)} including waiting). Image size: ${result.imageInfo.size} bytes.`,
    );
    await collectBackoff(deps.backoff, clock);
    return ref;
  } catch (error) {
    if (isAbort(error)) throw error; // Ctrl-C is not a registry failure
    // Events, the back-off file and the error all take this text: none may quote a credential.
    const described = describePullFailure(error, listSecretForms(credentials));
    const failure = { ...described, message: `${described.message}${hint}` };
    recorder.event(object, EventType.Warning, EventReason.Failed, `Failed to pull image ${quoted}: ${failure.message}`);
    // A container engine that is down says nothing about the registry: no back-off for it.
    const unrecorded =
      failure.reason === "RuntimeUnavailable"
        ? ""
        : await recordPullFailure(deps.backoff, key, attemptMs, clock, failure);
    throw new PodrunError(failure.reason, `${failure.message}${unrecorded}`, { cause: error });
  } finally {
    progress?.stop();
  }
}

// Step 1: applyDefaultImageTag's PodrunError becomes the InspectFailed event; anything else is a bug.
function defaultTag(image: string, fail: Fail): string {
  try {
    return applyDefaultImageTag(image);
  } catch (error) {
    if (!(error instanceof PodrunError)) throw error;
    return fail(EventType.Warning, EventReason.InspectFailed, error.reason, error.message, error.cause);
  }
}

// Steps 3–5 need the pod's one inspect: when it failed, a policy that asks for presence cannot answer.
function failInspect(inspectError: unknown, quoted: string, fail: Fail): never {
  const detail =
    inspectError instanceof Error
      ? errorFirstLine(inspectError)
      : typeof inspectError === "string"
        ? inspectError
        : "unknown error";
  return fail(
    EventType.Warning,
    EventReason.InspectFailed,
    "ImageInspectError",
    `Failed to inspect image ${quoted}: ${detail}`,
    inspectError,
  );
}

// Step 7: in back-off, one BackOff event and ImagePullBackOff; otherwise the previous error is forgotten.
async function checkBackoff(
  backoff: BackoffStore,
  key: string,
  attemptMs: number,
  quoted: string,
  fail: Fail,
  recordBackOff: (message: string) => void,
): Promise<void> {
  // Without its back-off the registry is not contacted (a full disk): the pull step fails, and
  // the state error (its path and why, in words) says what to mend.
  const unchecked = (error: unknown): never => {
    if (!(error instanceof StateAccessError)) throw error;
    return fail(
      EventType.Warning,
      EventReason.Failed,
      "ErrImagePull",
      `Failed to pull image ${quoted}: pull back-off not checked: ${error.message}`,
      error,
    );
  };
  const check = await backoff
    .update((state) => {
      if (state.isInBackOffSinceUpdate(key, attemptMs))
        return { inBackOff: true, previous: state.entries.get(key)?.lastError };
      delete state.entries.get(key)?.lastError; // the kubelet forgets the previous error before pulling
      return { inBackOff: false, previous: undefined };
    })
    .catch(unchecked);
  if (check.inBackOff) {
    const message = `Back-off pulling image ${quoted}`;
    recordBackOff(message);
    // The event has no suffix; the error (the waiting message) carries the previous failure.
    throw new PodrunError("ImagePullBackOff", check.previous ? `${message}: ${check.previous}` : message);
  }
}

// Success does not reset the key: the entry ages out. Dropping expired entries can wait for
// another run when the state cannot be written (a full disk): the image is there.
async function collectBackoff(backoff: BackoffStore, clock: () => number): Promise<void> {
  await backoff
    .update((state) => void state.gc(clock()))
    .catch((error: unknown) => {
      if (!(error instanceof StateAccessError)) throw error;
    });
}

// Advances the image's back-off after a failed pull; returns the suffix saying it could not be saved.
async function recordPullFailure(
  backoff: BackoffStore,
  key: string,
  attemptMs: number,
  clock: () => number,
  failure: PullFailure,
): Promise<string> {
  // The pull's failure is the one to report: a back-off that could not be saved (a full
  // disk) is said after it, not in its place.
  let unrecorded = "";
  await backoff
    .update((state) => {
      // Containers sharing this image share the key and, pulling together, this one pull:
      // advance once per failed attempt, not once per container.
      const entry = state.entries.get(key);
      const advanced =
        entry && entry.lastUpdateMs >= attemptMs && !state.isExpired(entry, clock()) ? entry : state.next(key, clock());
      advanced.lastError = `${failure.reason}: ${failure.message}`;
    })
    .catch((stateError: unknown) => void (unrecorded = `; back-off not recorded: ${errorMessage(stateError)}`));
  return unrecorded;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}
