// The kubelet's own keyring cases (kubernetes/kubernetes pkg/credentialprovider/keyring_test.go),
// ported to tables, plus the ordering and normalisation podrun relies on.
import t from "tap";
import type { DockerConfig, DockerConfigEntry } from "../../lib/credentials/docker-config.js";
import {
  isDefaultRegistryMatch,
  Keyring,
  matchGlob,
  normaliseRegistryKey,
  toDockerConfigKey,
  urlsMatch,
} from "../../lib/credentials/keyring.js";

const foo: DockerConfigEntry = { username: "foo", password: "bar", email: "foo@bar.baz" };
const keyringOf = (...configs: DockerConfig[]) => {
  const keyring = new Keyring();
  configs.forEach((config, i) => keyring.add(config, `source ${i}`));
  return keyring;
};
const users = (keyring: Keyring, image: string) => keyring.lookup(image).map((match) => match.entry.username);

t.test("urlsMatch (TestUrlsMatch)", async (t) => {
  const cases: [glob: string, target: string, match: boolean][] = [
    // no path component
    ["*.kubernetes.io", "prefix.kubernetes.io", true],
    ["prefix.*.io", "prefix.kubernetes.io", true],
    ["prefix.kubernetes.*", "prefix.kubernetes.io", true],
    ["*-good.kubernetes.io", "prefix-good.kubernetes.io", true],
    // path components
    ["*.kubernetes.io/blah", "prefix.kubernetes.io/blah", true],
    ["prefix.*.io/foo", "prefix.kubernetes.io/foo/bar", true],
    // path components and ports
    ["*.kubernetes.io:1111/blah", "prefix.kubernetes.io:1111/blah", true],
    ["prefix.*.io:1111/foo", "prefix.kubernetes.io:1111/foo/bar", true],
    // number of parts differs
    ["*.kubernetes.io", "kubernetes.io", false],
    ["*.*.kubernetes.io", "prefix.kubernetes.io", false],
    ["*.*.kubernetes.io", "kubernetes.io", false],
    // some part differs
    ["kubernetes.io", "kubernetes.com", false],
    ["k*.io", "quay.io", false],
    // ports differ
    ["*.kubernetes.io:1234/blah", "prefix.kubernetes.io:1111/blah", false],
    ["prefix.*.io/foo", "prefix.kubernetes.io:1111/foo/bar", false],
    // podrun's own: a `*` never spans a dot, the path is a plain prefix
    ["*.io", "a.b.io", false],
    ["registry.example.com/team", "registry.example.com/teamx/app", true],
    ["registry.example.com/team/", "registry.example.com/team", false],
    ["127.0.0.1:5100", "127.0.0.1:5100/podrun-test/busybox:1.36", true],
    ["127.0.0.1", "127.0.0.1:5100/podrun-test/busybox:1.36", false],
    ["[::1]:5000", "[::1]:5000/app", true],
    ["registry.[a-f]xample.com", "registry.example.com/app", true],
    ["registry.[^e]xample.com", "registry.example.com/app", false],
    // Go's url.Parse reads `?` as the start of the query (so `?` never globs a host) and a leading `[` as an IPv6 address
    ["reg?stry.example.com", "registry.example.com/app", false],
    ["[rR]egistry.example.com", "Registry.example.com/app", false],
    ["[bad.example.com", "[bad.example.com/app", false],
  ];
  for (const [glob, target, match] of cases) t.equal(urlsMatch(glob, target), match, `${glob} ~ ${target}`);
});

t.test("a key matches an image beneath it (TestDockerKeyringForGlob)", async (t) => {
  const cases: [registry: string, target: string][] = [
    ["https://hello.kubernetes.io", "hello.kubernetes.io"],
    ["https://*.docker.io", "prefix.docker.io"],
    ["https://prefix.*.io", "prefix.docker.io"],
    ["https://prefix.docker.*", "prefix.docker.io"],
    ["https://*.docker.io/path", "prefix.docker.io/path"],
    ["https://prefix.*.io/path", "prefix.docker.io/path/subpath"],
    ["https://prefix.docker.*/path", "prefix.docker.io/path"],
    ["https://*.docker.io:8888", "prefix.docker.io:8888"],
    ["https://prefix.*.io:8888", "prefix.docker.io:8888"],
    ["https://prefix.docker.*:8888", "prefix.docker.io:8888"],
    ["https://*.docker.io/path:1111", "prefix.docker.io/path:1111"],
    ["https://*.docker.io/v1/", "prefix.docker.io/path:1111"],
    ["https://*.docker.io/v2/", "prefix.docker.io/path:1111"],
    ["https://prefix.docker.*/path:1111", "prefix.docker.io/path:1111"],
    ["prefix.docker.io:1111", "prefix.docker.io:1111/path"],
    ["*.docker.io:1111", "prefix.docker.io:1111/path"],
  ];
  for (const [registry, target] of cases) {
    const matches = keyringOf([[registry, foo]]).lookup(`${target}/foo/bar`);
    t.same(matches[0]?.entry, { ...foo, source: "source 0" }, `${registry} for ${target}`);
  }
});

t.test("a key misses an image elsewhere (TestKeyringMiss)", async (t) => {
  const cases: [registry: string, lookup: string][] = [
    ["https://hello.kubernetes.io", "world.mesos.org/foo/bar"],
    ["https://*.docker.com", "prefix.docker.io"],
    ["https://suffix.*.io", "prefix.docker.io"],
    ["https://prefix.docker.c*", "prefix.docker.io"],
    ["https://prefix.*.io/path:1111", "prefix.docker.io/path/subpath:1111"],
    ["suffix.*.io", "prefix.docker.io"],
  ];
  for (const [registry, lookup] of cases)
    t.same(keyringOf([[registry, foo]]).lookup(`${lookup}/foo/bar`), [], `${registry} for ${lookup}`);
});

t.test("Docker Hub credentials (TestKeyring…DockerHub…)", async (t) => {
  const hub = keyringOf([["https://index.docker.io/v1/", foo]]);
  t.same(users(hub, "world.mesos.org/foo/bar"), [], "another registry");
  t.same(users(hub, "google/docker-registry"), ["foo"], "unqualified");
  t.same(users(hub, "jenkins"), ["foo"], "unqualified library image");
  t.same(users(hub, "index.docker.io/v1//google/docker-registry"), ["foo"], "qualified");
  t.same(users(hub, "docker.io/library/busybox:1.36"), ["foo"], "docker.io/ falls back to index.docker.io");
  t.same(hub.lookup("busybox")[0]?.key, "index.docker.io", "the key the engine must use");
  t.same(users(keyringOf([["docker.io", foo]]), "busybox"), [], "no fallback to a docker.io key");
  t.same(
    users(keyringOf([["docker.io", foo]]), "docker.io/library/busybox"),
    ["foo"],
    "a docker.io key matches docker.io/ by URL",
  );
});

t.test("isDefaultRegistryMatch (TestIsDefaultRegistryMatch)", async (t) => {
  const cases: [image: string, expected: boolean][] = [
    ["foo/bar", true],
    ["docker.io/foo/bar", true],
    ["index.docker.io/foo/bar", true],
    ["foo", true],
    ["", false],
    ["registry.tld/foo/bar", false],
    ["registry:5000/foo/bar", false],
    ["myhostdocker.io/foo/bar", false],
    ["localhost/foo", true],
  ];
  for (const [image, expected] of cases) t.equal(isDefaultRegistryMatch(image), expected, image || "(empty)");
});

t.test("most specific key first (TestDockerKeyringLookup)", async (t) => {
  const keyring = keyringOf([
    ["bar.example.com/pong", { username: "grace", password: "squash", email: "grace@example.com" }],
    ["bar.example.com", { username: "ada", password: "smash", email: "ada@example.com" }],
  ]);
  const cases: [image: string, expected: string[]][] = [
    ["bar.example.com", ["ada"]],
    ["bar.example.com/pong", ["grace", "ada"]],
    ["bar.example.com/ping", ["ada"]],
    ["bar.example.com/pongz", ["grace", "ada"]],
    ["bar.example.com/pong/pang", ["grace", "ada"]],
    ["example.com", []],
    ["foo.example.com", []],
  ];
  for (const [image, expected] of cases) t.same(users(keyring, image), expected, image);
});

t.test("a key with a scheme and /v1/ matches the host (TestIssue3797)", async (t) => {
  const keyring = keyringOf([
    ["https://quay.io/v1/", { username: "rex", password: "tiny arms", email: "rex@example.com" }],
  ]);
  for (const image of ["quay.io", "quay.io/foo", "quay.io/foo/bar"]) t.same(users(keyring, image), ["rex"], image);
});

t.test("one keyring of several configs: by key, then in the order added", async (t) => {
  const keyring = keyringOf(
    [["registry.example.com", { username: "first", password: "1", email: "" }]],
    [
      ["https://registry.example.com/v2/", { username: "second", password: "2", email: "" }],
      ["registry.example.com/team", { username: "team", password: "3", email: "" }],
    ],
  );
  t.same(users(keyring, "registry.example.com/team/app"), ["team", "first", "second"]);
  t.same(
    keyring.lookup("registry.example.com/app").map((m) => [m.key, m.entry.source]),
    [
      ["registry.example.com", "source 0"],
      ["registry.example.com", "source 1"],
    ],
  );
  // Go's byte order: upper case sorts before lower case, so reversed it comes last.
  t.same(
    users(
      keyringOf([
        ["*.example.com", { ...foo, username: "glob" }],
        ["a.example.com", foo],
      ]),
      "a.example.com/x",
    ),
    ["foo", "glob"],
  );
});

t.test("normaliseRegistryKey", async (t) => {
  const cases: [registry: string, key: string | undefined][] = [
    ["registry.example.com", "registry.example.com"],
    ["https://registry.example.com", "registry.example.com"],
    ["http://registry.example.com:5000/", "registry.example.com:5000"],
    ["https://index.docker.io/v1/", "index.docker.io"],
    ["registry.example.com/v2/team", "registry.example.com/team"],
    ["registry.example.com/v2", "registry.example.com/v2"],
    ["registry.example.com/team?x=1", "registry.example.com/team"],
    ["user@registry.example.com", "registry.example.com"],
    ["registry.example.com:port", undefined],
    ["[::1", undefined],
    ["bad host.example.com", undefined],
    ["registry{1}.example.com", undefined],
    ["registry.example.com/a\tb", undefined],
    // only a lower-case scheme is recognised: the rest is read as host "HTTPS:" and a path
    ["HTTPS://registry.example.com", "HTTPS://registry.example.com"],
  ];
  for (const [registry, key] of cases) t.equal(normaliseRegistryKey(registry), key, registry);
  t.same(
    users(keyringOf([["registry.example.com:port", foo]]), "registry.example.com/app"),
    [],
    "an invalid key is skipped",
  );
});

t.test("matchGlob follows path/filepath.Match", async (t) => {
  const cases: [pattern: string, name: string, match: boolean][] = [
    ["*", "anything", true],
    ["*", "", true],
    ["a*b", "axxb", true],
    ["a?c", "abc", true],
    ["a?c", "ac", false],
    ["[a-c]x", "bx", true],
    ["[^a-c]x", "bx", false],
    ["\\*", "*", true],
    ["\\*", "x", false],
    ["[", "[", false],
    ["ab\\", "ab", false],
  ];
  for (const [pattern, name, match] of cases) t.equal(matchGlob(pattern, name), match, `${pattern} ~ ${name}`);
});

t.test("toDockerConfigKey: the host docker looks credentials up by", async (t) => {
  const cases: [image: string, expected: string][] = [
    ["127.0.0.1:5101/podrun-test/private-busybox:1.36", "127.0.0.1:5101"],
    ["registry.example.com/team/app@sha256:abc", "registry.example.com"],
    ["busybox", "https://index.docker.io/v1/"],
    ["library/busybox:1.36", "https://index.docker.io/v1/"],
    ["docker.io/library/busybox", "https://index.docker.io/v1/"],
    ["index.docker.io/library/busybox", "https://index.docker.io/v1/"],
    ["localhost/app", "localhost"],
    ["Registry/app", "Registry"],
    ["localhost:5000/app", "localhost:5000"],
  ];
  for (const [image, expected] of cases) t.equal(toDockerConfigKey(image), expected, image);
});
