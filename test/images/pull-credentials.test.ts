// Credentials through the image manager and the puller: resolved only when a pull is needed, each
// tried in order until one pulls (none: one plain pull), the final error naming every source,
// engine-down and aborts not retried, pulls shared only with the same credentials, and failure
// texts scrubbed before the event, the back-off file and the error.
import t from "tap";
import { PodrunError } from "../../lib/errors.js";
import { createRecorder } from "../../lib/events/recorder.js";
import { toInvolvedObject, type KubeEvent } from "../../lib/events/types.js";
import type { RegistryCredential } from "../../lib/credentials/types.js";
import { createImageManager } from "../../lib/images/manager.js";
import { createImagePuller } from "../../lib/images/puller.js";
import { pullWithCredentials } from "../../lib/images/pull-with-credentials.js";
import { classifyPullError, PullError } from "../../lib/runtime/pull-errors.js";
import type { ImageInfo, PullOptions } from "../../lib/runtime/types.js";
import { createMemoryBackoffStore } from "../../lib/state/backoff-store.js";
import { FakeRuntime } from "../harness/fake-runtime.js";

const INFO: ImageInfo = { id: "sha256:x", size: 1 };
const IMAGE = "registry.example.com/team/app:1";
const cred = (name: string, password = `pw-${name}`): RegistryCredential => ({
  username: "ci",
  password,
  registry: "registry.example.com",
  source: `secret "${name}"`,
});

/** The engine's refusal, as the runtime classifies it for one credential. */
function refused(credential: RegistryCredential | undefined, echo = ""): PullError {
  const stderr = `Error response from daemon: Head "https://registry.example.com/v2/team/app/manifests/1": unauthorized: authentication required${echo}`;
  const classification = classifyPullError(stderr, {
    image: IMAGE,
    credentialsGiven: credential !== undefined,
    credentialSources: credential ? [credential.source] : [],
  });
  return new PullError(IMAGE, classification, { stderr });
}

/** The shared fake engine answering each pull from a script keyed by the credential's source ("none" without). */
class ScriptedRuntime extends FakeRuntime {
  /** Each pull as `<ref> <credential source>`. */
  get pulls(): string[] {
    return this.callLog
      .filter((c) => c.method === "pullImage")
      .map((c) => `${c.args[0] as string} ${(c.args[1] as PullOptions).credential?.source ?? "none"}`);
  }
}
function scriptedRuntime(script: Record<string, ImageInfo | Error>): ScriptedRuntime {
  return new ScriptedRuntime({ pull: (_ref, options) => script[options.credential?.source ?? "none"] ?? INFO });
}

t.test("pullWithCredentials: the kubelet's order", async (t) => {
  const a = cred("a");
  const b = cred("b");
  const c = cred("c");
  const cases: {
    name: string;
    credentials: RegistryCredential[];
    script: Record<string, ImageInfo | Error>;
    calls: string[];
    error?: RegExp;
  }[] = [
    { name: "none: one plain pull", credentials: [], script: {}, calls: [`${IMAGE} none`] },
    { name: "the first that pulls wins", credentials: [a, b], script: {}, calls: [`${IMAGE} secret "a"`] },
    {
      name: "a refused one is followed by the next",
      credentials: [a, b],
      script: { 'secret "a"': refused(a) },
      calls: [`${IMAGE} secret "a"`, `${IMAGE} secret "b"`],
    },
    {
      name: "all refused: the last error, naming every source",
      credentials: [a, b, c],
      script: { 'secret "a"': refused(a), 'secret "b"': refused(b), 'secret "c"': refused(c) },
      calls: [`${IMAGE} secret "a"`, `${IMAGE} secret "b"`, `${IMAGE} secret "c"`],
      error:
        /unauthorized: authentication required \(the registry refused the credentials from secret "a", secret "b" and secret "c": check them\)$/,
    },
    {
      name: "one refused: its own error",
      credentials: [a],
      script: { 'secret "a"': refused(a) },
      calls: [`${IMAGE} secret "a"`],
      error: /\(the registry refused the credentials from secret "a": check it\)$/,
    },
    {
      name: "an engine that is down is not asked again",
      credentials: [a, b],
      script: {
        'secret "a"': new PullError(IMAGE, {
          reason: "RuntimeUnavailable",
          kind: "engine-down",
          message: "docker: not installed",
        }),
      },
      calls: [`${IMAGE} secret "a"`],
      error: /not installed/,
    },
  ];
  for (const c of cases) {
    const runtime = scriptedRuntime(c.script);
    const outcome = await pullWithCredentials({ runtime, ref: IMAGE, credentials: c.credentials }).then(
      (info) => info,
      (error: unknown) => error as Error,
    );
    t.same(runtime.pulls, c.calls, `${c.name}: calls`);
    if (c.error) t.match(outcome instanceof Error ? outcome.message : "", c.error, `${c.name}: error`);
    else t.same(outcome, INFO, `${c.name}: pulled`);
  }
});

t.test("pullWithCredentials: an abort stops at once", async (t) => {
  const controller = new AbortController();
  const runtime = new FakeRuntime({
    pull: () => {
      controller.abort();
      return refused(cred("a"));
    },
  });
  await t.rejects(
    pullWithCredentials({ runtime, ref: IMAGE, credentials: [cred("a"), cred("b")], signal: controller.signal }),
  );
  t.equal(runtime.callsOf("pullImage").length, 1);
});

t.test("the puller shares a pull only between the same ref with the same credentials", async (t) => {
  const runtime = scriptedRuntime({});
  const puller = createImagePuller({ runtime, maxParallel: 4 });
  const same = cred("a");
  await Promise.all([
    puller.pull(IMAGE, [same]),
    puller.pull(IMAGE, [{ ...same }]),
    puller.pull(IMAGE, [cred("b")]),
    puller.pull(IMAGE, [cred("a", "another password")]),
    puller.pull(IMAGE),
    puller.pull(IMAGE, []),
  ]);
  t.same(
    runtime.pulls.sort(),
    [`${IMAGE} none`, `${IMAGE} secret "a"`, `${IMAGE} secret "a"`, `${IMAGE} secret "b"`].sort(),
  );
});

t.test(
  "the manager asks for credentials only to pull, and scrubs them from the event, the back-off file and the error",
  async (t) => {
    const leaky = cred("leaky", "hunter2-secret");
    const runtime = scriptedRuntime({
      'secret "leaky"': refused(
        leaky,
        ` (sent ci:hunter2-secret, ${Buffer.from("ci:hunter2-secret").toString("base64")})`,
      ),
    });
    const events: KubeEvent[] = [];
    const recorder = createRecorder({
      sinks: [{ write: (e) => events.push(e) }],
      clock: () => 1_700_000_000_000,
      host: "test",
    });
    const backoff = createMemoryBackoffStore();
    const manager = createImageManager({
      recorder,
      backoff,
      puller: createImagePuller({ runtime }),
      clock: () => 1_700_000_000_000,
    });
    let asked = 0;
    const pullCredentials = () => (asked++, [leaky]);
    const object = toInvolvedObject({ name: "web", namespace: "default", uid: "u" }, { name: "app" });

    await manager.ensureImageExists({
      object,
      image: IMAGE,
      pullPolicy: "IfNotPresent",
      present: new Map([[IMAGE, INFO]]),
      pullCredentials,
    });
    t.equal(asked, 0, "a present image needs none");

    const error = await manager
      .ensureImageExists({ object, image: IMAGE, pullPolicy: "IfNotPresent", present: new Map(), pullCredentials })
      .catch((e: unknown) => e);
    t.equal(asked, 1, "asked once for the pull");
    t.ok(error instanceof PodrunError);
    const stored = await backoff.update((state) =>
      [...state.entries.values()].map((e) => e.lastError ?? "").join("\n"),
    );
    const texts = [(error as Error).message, ...events.map((e) => e.message), stored];
    for (const text of texts)
      t.notMatch(text, /hunter2|aHVudGVyMi|Y2k6aHVudGVy/, `no trace of the password in: ${text.slice(0, 60)}…`);
    t.match((error as Error).message, /<redacted>.*secret "leaky"/);
  },
);

t.test("a credential lookup that throws fails the pull like any pull error, with back-off", async (t) => {
  const runtime = scriptedRuntime({});
  const events: KubeEvent[] = [];
  const recorder = createRecorder({
    sinks: [{ write: (e) => events.push(e) }],
    clock: () => 1_700_000_000_000,
    host: "test",
  });
  const backoff = createMemoryBackoffStore();
  const manager = createImageManager({
    recorder,
    backoff,
    puller: createImagePuller({ runtime }),
    clock: () => 1_700_000_000_000,
  });
  const pullCredentials = () => {
    throw new PodrunError("ErrImagePull", 'secret "regcred": .dockerconfigjson is not valid JSON');
  };
  const object = toInvolvedObject({ name: "web", namespace: "default", uid: "u" }, { name: "app" });
  await t.rejects(
    manager.ensureImageExists({ object, image: IMAGE, pullPolicy: "Always", present: new Map(), pullCredentials }),
    { reason: "ErrImagePull", message: /secret "regcred"/ },
  );
  t.same(runtime.pulls, [], "the engine was not asked");
  t.same(
    events.map((e) => e.reason),
    ["Pulling", "Failed"],
  );
  t.equal(await backoff.update((state) => state.entries.size), 1, "backs off");
});
