import t from "tap";
import { PodrunError } from "../../lib/errors.js";
import {
  applyDefaultImageTag,
  defaultPullPolicy,
  parseImageReference,
  type ImageReference,
} from "../../lib/runtime/image-reference.js";

const SHA = "a".repeat(64);
const DIGEST = `sha256:${SHA}`;

t.test("valid references are returned as written", async (t) => {
  const cases: [string, ImageReference][] = [
    ["busybox", { path: "busybox" }],
    ["busybox:1.36", { path: "busybox", tag: "1.36" }],
    ["library/busybox", { path: "library/busybox" }],
    ["docker.io/library/busybox:latest", { domain: "docker.io", path: "library/busybox", tag: "latest" }],
    ["docker.io/busybox", { domain: "docker.io", path: "busybox" }],
    ["index.docker.io/busybox", { domain: "index.docker.io", path: "busybox" }],
    ["localhost/x", { domain: "localhost", path: "x" }],
    ["localhost:5000/x/y:t", { domain: "localhost:5000", path: "x/y", tag: "t" }],
    ["127.0.0.1:5100/podrun-test/busybox:1.36", { domain: "127.0.0.1:5100", path: "podrun-test/busybox", tag: "1.36" }],
    ["[::1]:5000/a", { domain: "[::1]:5000", path: "a" }],
    ["registry.k8s.io/pause:3.10", { domain: "registry.k8s.io", path: "pause", tag: "3.10" }],
    ["Example.COM/app", { domain: "Example.COM", path: "app" }],
    ["a__b/c-d--e.f_g", { path: "a__b/c-d--e.f_g" }],
    ["x:Tag_1.0-rc", { path: "x", tag: "Tag_1.0-rc" }],
    [`x@${DIGEST}`, { path: "x", digest: DIGEST }],
    [`x:tag@${DIGEST}`, { path: "x", tag: "tag", digest: DIGEST }],
    [`x@sha512:${"b".repeat(128)}`, { path: "x", digest: `sha512:${"b".repeat(128)}` }],
    [`x:${"t".repeat(128)}`, { path: "x", tag: "t".repeat(128) }],
    ["a".repeat(247), { path: "a".repeat(247) }],
  ];
  for (const [image, reference] of cases) {
    t.same(parseImageReference(image), { ok: true, reference }, image);
  }
});

t.test("invalid references give distribution's reason", async (t) => {
  const cases: [string, string][] = [
    ["Busybox", "invalid reference format: repository name (library/Busybox) must be lowercase"],
    ["library/Busybox:1", "invalid reference format: repository name (library/Busybox) must be lowercase"],
    ["localhost:5000/Foo", "invalid reference format: repository name (Foo) must be lowercase"],
    ["", "invalid reference format"],
    ["a:", "invalid reference format"],
    [":tag", "invalid reference format"],
    ["a b", 'invalid reference format: character " " at position 2 is not allowed'],
    ["gcr.io/<project>/job-wq-1", 'invalid reference format: character "<" at position 8 is not allowed'],
    ["registry.io/app:${TAG}", 'invalid reference format: character "$" at position 17 is not allowed'],
    ["a//b", "invalid reference format"],
    ["-a", "invalid reference format"],
    ["a/", "invalid reference format"],
    ["a@sha256:abc", "invalid reference format"],
    [`x:${"t".repeat(129)}`, "invalid reference format"],
    [`x@sha256:${"A".repeat(64)}`, "invalid checksum digest format"],
    [`x@sha256:${"a".repeat(40)}`, "invalid checksum digest length"],
    [`x@md5:${"a".repeat(32)}`, "unsupported digest algorithm"],
    [`x:1@SHA256:${SHA}`, "invalid checksum digest format"],
    // Docker checks case up to the first `:`, which here is inside the digest.
    [`x@SHA256:${SHA}`, "invalid reference format: repository name (library/x@SHA256) must be lowercase"],
    ["a".repeat(248), "repository name must not be more than 255 characters"],
    [`registry.io/${"a".repeat(256)}`, "repository name must not be more than 255 characters"],
    [SHA, `invalid repository name (${SHA}), cannot specify 64-byte hexadecimal strings`],
  ];
  for (const [image, reason] of cases) {
    t.same(parseImageReference(image), { ok: false, reason }, JSON.stringify(image));
  }
});

t.test("applyDefaultImageTag appends :latest only without tag and digest", async (t) => {
  const cases: [string, string][] = [
    ["busybox", "busybox:latest"],
    ["busybox:latest", "busybox:latest"],
    ["busybox:1.36", "busybox:1.36"],
    ["library/busybox", "library/busybox:latest"],
    ["localhost:5000/x", "localhost:5000/x:latest"],
    [`x@${DIGEST}`, `x@${DIGEST}`],
    [`x:1@${DIGEST}`, `x:1@${DIGEST}`],
  ];
  for (const [image, expected] of cases) t.equal(applyDefaultImageTag(image), expected, image);
});

t.test("applyDefaultImageTag throws InvalidImageName in the kubelet's words", async (t) => {
  const cases: [string, string][] = [
    ["a b", 'Failed to apply default image tag "a b": couldn\'t parse image name "a b": invalid reference format'],
    [
      "Busybox",
      'Failed to apply default image tag "Busybox": couldn\'t parse image name "Busybox": invalid reference format: repository name (library/Busybox) must be lowercase',
    ],
  ];
  for (const [image, message] of cases) {
    t.throws(() => applyDefaultImageTag(image), new PodrunError("InvalidImageName", message), image);
    try {
      applyDefaultImageTag(image);
    } catch (e) {
      t.equal((e as PodrunError).reason, "InvalidImageName");
    }
  }
});

t.test("defaultPullPolicy follows SetDefaults_Container", async (t) => {
  const cases: [string, "Always" | "IfNotPresent"][] = [
    ["nginx", "Always"],
    ["nginx:latest", "Always"],
    ["nginx:1.25", "IfNotPresent"],
    [`nginx@${DIGEST}`, "IfNotPresent"],
    [`nginx:1.25@${DIGEST}`, "IfNotPresent"],
    // The parser reports a written tag alongside the digest, and `latest` means Always.
    [`nginx:latest@${DIGEST}`, "Always"],
    ["localhost:5000/nginx", "Always"],
    // Unparsable: the API server ignores the error and the tag is empty.
    ["Nginx", "IfNotPresent"],
  ];
  for (const [image, policy] of cases) t.equal(defaultPullPolicy(image), policy, image);
});
