// The pull-error classifier on stderr captured from docker and podman on the test machine, and on
// nerdctl/containerd texts written by hand from their sources (test/fixtures/pull-errors/README.md).
import t from "tap";
import { readFileSync } from "node:fs";
import {
  classifyPullError,
  PullError,
  reduceErrorLine,
  type PullErrorKind,
  type PullReason,
} from "../../lib/runtime/pull-errors.js";
import { PodrunError } from "../../lib/errors.js";

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/pull-errors/${name}.stderr.txt`, import.meta.url), "utf8");

const MISSING_TAG = "127.0.0.1:5100/podrun-test/busybox:no-such-tag";
const MISSING_REPO = "127.0.0.1:5100/podrun-test/no-such-repo:1";
const PRIVATE = "127.0.0.1:5101/podrun-test/private-busybox:1.36";
const NOWHERE = "127.0.0.1:5199/podrun-test/busybox:1.36";
const STUB = "127.0.0.1:5198/podrun-test/busybox:1.36";
const OPEN = "127.0.0.1:5100/podrun-test/busybox:1.36";

interface Case {
  fixture: string;
  image: string;
  credentials?: boolean;
  reason: PullReason;
  kind: PullErrorKind;
}

const cases: Case[] = [
  // docker (captured)
  { fixture: "docker-missing-tag", image: MISSING_TAG, reason: "ErrImagePull", kind: "not-found" },
  { fixture: "docker-missing-repo", image: MISSING_REPO, reason: "ErrImagePull", kind: "not-found" },
  { fixture: "docker-auth-no-creds", image: PRIVATE, reason: "ErrImagePull", kind: "unauthorized" },
  {
    fixture: "docker-auth-wrong-password",
    image: PRIVATE,
    credentials: true,
    reason: "ErrImagePull",
    kind: "unauthorized",
  },
  { fixture: "docker-connection-refused", image: NOWHERE, reason: "RegistryUnavailable", kind: "unavailable" },
  { fixture: "docker-daemon-down", image: OPEN, reason: "RuntimeUnavailable", kind: "engine-down" },
  { fixture: "docker-registry-500", image: STUB, reason: "RegistryUnavailable", kind: "unavailable" },
  { fixture: "docker-registry-429", image: STUB, reason: "ErrImagePull", kind: "rate-limited" },
  { fixture: "docker-registry-denied", image: STUB, reason: "ErrImagePull", kind: "not-found-or-unauthorized" },
  { fixture: "docker-registry-denied", image: STUB, credentials: true, reason: "ErrImagePull", kind: "unauthorized" },
  // podman (captured)
  { fixture: "podman-missing-tag", image: MISSING_TAG, reason: "ErrImagePull", kind: "not-found" },
  { fixture: "podman-missing-repo", image: MISSING_REPO, reason: "ErrImagePull", kind: "not-found" },
  { fixture: "podman-auth-no-creds", image: PRIVATE, reason: "ErrImagePull", kind: "unauthorized" },
  {
    fixture: "podman-auth-wrong-password",
    image: PRIVATE,
    credentials: true,
    reason: "ErrImagePull",
    kind: "unauthorized",
  },
  { fixture: "podman-connection-refused", image: NOWHERE, reason: "RegistryUnavailable", kind: "unavailable" },
  { fixture: "podman-remote-down", image: OPEN, reason: "RuntimeUnavailable", kind: "engine-down" },
  { fixture: "podman-registry-500", image: STUB, reason: "RegistryUnavailable", kind: "unavailable" },
  { fixture: "podman-registry-429", image: STUB, reason: "ErrImagePull", kind: "rate-limited" },
  { fixture: "podman-registry-denied", image: STUB, reason: "ErrImagePull", kind: "not-found-or-unauthorized" },
  // nerdctl / containerd and Docker Hub (written from the reference, not captured)
  { fixture: "nerdctl-missing-tag", image: MISSING_TAG, reason: "ErrImagePull", kind: "not-found" },
  {
    fixture: "nerdctl-access-denied",
    image: "no-such-image:1",
    reason: "ErrImagePull",
    kind: "not-found-or-unauthorized",
  },
  {
    fixture: "nerdctl-access-denied",
    image: "no-such-image:1",
    credentials: true,
    reason: "ErrImagePull",
    kind: "unauthorized",
  },
  { fixture: "nerdctl-no-basic-auth", image: PRIVATE, reason: "ErrImagePull", kind: "unauthorized" },
  {
    fixture: "nerdctl-forbidden",
    image: "registry.example.com/team/app:1",
    reason: "ErrImagePull",
    kind: "unauthorized",
  },
  {
    fixture: "nerdctl-dns-timeout",
    image: "registry.example.com/team/app:1",
    reason: "RegistryUnavailable",
    kind: "unavailable",
  },
  { fixture: "nerdctl-http-to-https", image: OPEN, reason: "RegistryUnavailable", kind: "unavailable" },
  { fixture: "nerdctl-containerd-down", image: OPEN, reason: "RuntimeUnavailable", kind: "engine-down" },
  {
    fixture: "docker-hub-access-denied",
    image: "no-such-image:1",
    reason: "ErrImagePull",
    kind: "not-found-or-unauthorized",
  },
];

t.test("each fixture gets the kubelet's reason and podrun's kind; messages are one line", async (t) => {
  for (const c of cases) {
    const got = classifyPullError(fixture(c.fixture), { image: c.image, credentialsGiven: c.credentials ?? false });
    const label = `${c.fixture}${c.credentials ? " (credentials given)" : ""}`;
    t.same({ reason: got.reason, kind: got.kind }, { reason: c.reason, kind: c.kind }, label);
    t.notMatch(got.message, /\n/, `${label}: one line`);
    t.notMatch(got.message, /^(?:Error|Error response from daemon|time=|level=)/, `${label}: no decoration`);
  }
});

t.test("messages: the runtime's text reduced, the kubelet's wording for an unavailable registry", async (t) => {
  const opts = (image: string, credentialsGiven = false) => ({ image, credentialsGiven });
  t.equal(
    classifyPullError(fixture("docker-missing-tag"), opts(MISSING_TAG)).message,
    "manifest for 127.0.0.1:5100/podrun-test/busybox:no-such-tag not found: manifest unknown: manifest unknown",
  );
  t.equal(
    classifyPullError(fixture("podman-missing-tag"), opts(MISSING_TAG)).message,
    "initializing source docker://127.0.0.1:5100/podrun-test/busybox:no-such-tag: reading manifest no-such-tag in 127.0.0.1:5100/podrun-test/busybox: manifest unknown: manifest unknown",
  );
  t.equal(
    classifyPullError(fixture("docker-connection-refused"), opts(NOWHERE)).message,
    `image pull failed for ${NOWHERE} because the registry is unavailable: Get "http://127.0.0.1:5199/v2/": dial tcp 127.0.0.1:5199: connect: connection refused`,
  );
  // podman's retry warnings repeat the error: the final `Error:` line is the one reported.
  t.equal(
    classifyPullError(fixture("podman-connection-refused"), opts(NOWHERE)).message,
    `image pull failed for ${NOWHERE} because the registry is unavailable: initializing source docker://${NOWHERE}: pinging container registry 127.0.0.1:5199: Get "https://127.0.0.1:5199/v2/": dial tcp 127.0.0.1:5199: connect: connection refused`,
  );
  t.equal(
    classifyPullError(fixture("docker-auth-no-creds"), { ...opts(PRIVATE), runtime: "podman" }).message,
    `Head "http://127.0.0.1:5101/v2/podrun-test/private-busybox/manifests/1.36": no basic auth credentials (no credentials for this registry: add an imagePullSecret, pass --authfile, or run \`podman login 127.0.0.1:5101\`)`,
  );
  t.match(
    classifyPullError(fixture("podman-auth-wrong-password"), opts(PRIVATE, true)).message,
    /unauthorized: authentication required \(the registry refused the credentials from imagePullSecrets: check them\)$/,
  );
  // The hint names where the refused credentials came from, never what they are.
  t.match(
    classifyPullError(fixture("podman-auth-wrong-password"), {
      ...opts(PRIVATE, true),
      credentialSources: ['secret "regcred"'],
    }).message,
    /\(the registry refused the credentials from secret "regcred": check it\)$/,
  );
  t.match(
    classifyPullError(fixture("docker-auth-no-creds"), {
      ...opts(PRIVATE, true),
      credentialSources: ['secret "a"', "--authfile /ci/auth.json"],
    }).message,
    /\(the registry refused the credentials from secret "a" and --authfile \/ci\/auth\.json: check them\)$/,
  );
  t.match(
    classifyPullError(fixture("nerdctl-access-denied"), opts("x:1")).message,
    /^failed to resolve reference "docker\.io\/library\/no-such-image:1": pull access denied/,
  );
  t.equal(
    classifyPullError(fixture("nerdctl-containerd-down"), opts(OPEN)).message,
    'cannot access containerd socket "/run/containerd/containerd.sock": no such file or directory',
    "the buildctl warning is not the error",
  );
  t.equal(
    classifyPullError(fixture("docker-daemon-down"), opts(OPEN)).message,
    "Cannot connect to the Docker daemon at unix:///nonexistent.sock. Is the docker daemon running?",
  );
  t.match(classifyPullError("", opts(OPEN)), { kind: "other", message: `pull of ${OPEN} failed` }, "empty stderr");
  t.equal(
    classifyPullError('time="2025-02-12T10:15:42Z" level=fatal msg="1 errors:\\nfailed: \\"x\\""', opts(OPEN)).message,
    '1 errors: failed: "x"',
    "logrus escapes undone, on one line",
  );
});

t.test("status codes count only as words of their own", async (t) => {
  const digest = "sha256:4290000000000000000000000000000000000000000000000000000000000500";
  const got = classifyPullError(`Error response from daemon: manifest for x@${digest} not found: manifest unknown`, {
    image: `x@${digest}`,
    credentialsGiven: false,
  });
  t.equal(got.kind, "not-found", "429 and 500 inside a digest are not status codes");
  const port = classifyPullError("Error: something odd happened talking to 10.0.0.1:500/repo", {
    image: "10.0.0.1:500/repo:1",
    credentialsGiven: false,
  });
  t.equal(port.kind, "other", "a port is not a status code");
  t.equal(
    classifyPullError("Error: unexpected status: 502 Bad Gateway", { image: "x:1", credentialsGiven: false }).kind,
    "unavailable",
  );
});

t.test("reduceErrorLine strips engine prefixes and trailing hints", async (t) => {
  t.equal(
    reduceErrorLine("docker: Error response from daemon: No such image: x:1. See 'docker run --help'."),
    "No such image: x:1",
  );
  t.equal(reduceErrorLine("Error: x: image not known"), "x: image not known");
});

t.test("PullError is a PodrunError carrying reason, kind and image", async (t) => {
  const classification = classifyPullError(fixture("docker-missing-tag"), {
    image: MISSING_TAG,
    credentialsGiven: false,
  });
  const error = new PullError(MISSING_TAG, classification);
  t.ok(error instanceof PodrunError, "exit 1 through the CLI's PodrunError mapping");
  t.ok(error instanceof Error);
  t.match(error, { reason: "ErrImagePull", kind: "not-found", image: MISSING_TAG, message: classification.message });
});
