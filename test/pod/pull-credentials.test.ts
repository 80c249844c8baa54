import t from "tap";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Pod, Secret } from "kubernetes-types/core/v1.js";
import { findPullCredentials, readAuthFile } from "../../lib/pod/pull-credentials.js";
import { PodrunError, UsageError } from "../../lib/errors.js";

const PRIVATE = "127.0.0.1:5101/podrun-test/private-busybox:1.36";
const b64 = (text: string) => Buffer.from(text).toString("base64");
const auths = (entries: Record<string, [string, string]>) =>
  JSON.stringify({
    auths: Object.fromEntries(Object.entries(entries).map(([k, [u, p]]) => [k, { auth: b64(`${u}:${p}`) }])),
  });
const jsonSecret = (name: string, entries: Record<string, [string, string]>, namespace?: string): Secret => ({
  metadata: { name, ...(namespace ? { namespace } : {}) },
  type: "kubernetes.io/dockerconfigjson",
  stringData: { ".dockerconfigjson": auths(entries) },
});
const podWith = (names: string[], namespace?: string): Pod => ({
  metadata: { name: "app", ...(namespace ? { namespace } : {}) },
  spec: { containers: [{ name: "app", image: PRIVATE }], imagePullSecrets: names.map((name) => ({ name })) },
});
const summary = (credentials: { username: string; registry: string; source: string }[]) =>
  credentials.map(({ username, registry, source }) => `${username}@${registry} from ${source}`);

let dir = "";
t.before(async () => {
  dir = await mkdtemp(join(tmpdir(), "podrun-credentials-"));
});
t.teardown(() => rm(dir, { recursive: true, force: true }));

t.test("the pod's pull secrets form one keyring: most specific key first, then the pod's order", async (t) => {
  const secrets = [
    jsonSecret("host", { "127.0.0.1:5101": ["first", "p1"] }),
    jsonSecret("repo", {
      "https://127.0.0.1:5101/v2/": ["second", "p2"],
      "127.0.0.1:5101/podrun-test": ["team", "p3"],
    }),
    jsonSecret("elsewhere", { "registry.example.com": ["other", "p4"] }),
    {
      metadata: { name: "opaque" },
      type: "Opaque",
      stringData: { ".dockerconfigjson": auths({ "127.0.0.1:5101": ["opaque", "p5"] }) },
    },
  ];
  const credentials = findPullCredentials({
    pod: podWith(["host", "repo", "elsewhere", "opaque"]),
    objects: { configMaps: [], secrets },
    image: PRIVATE,
  });
  t.same(summary(credentials), [
    'team@127.0.0.1:5101/podrun-test from secret "repo"',
    'first@127.0.0.1:5101 from secret "host"',
    'second@127.0.0.1:5101 from secret "repo"',
  ]);
  t.equal(credentials[0]?.password, "p3");
});

t.test("secrets of the pod's namespace only, and no match means no credentials", async (t) => {
  const secrets = [
    jsonSecret("regcred", { "127.0.0.1:5101": ["default", "p"] }),
    jsonSecret("regcred", { "127.0.0.1:5101": ["ci", "p"] }, "ci"),
  ];
  t.same(
    summary(
      findPullCredentials({ pod: podWith(["regcred"], "ci"), objects: { configMaps: [], secrets }, image: PRIVATE }),
    ),
    ['ci@127.0.0.1:5101 from secret "regcred"'],
  );
  t.same(
    findPullCredentials({
      pod: podWith(["regcred"]),
      objects: { configMaps: [], secrets },
      image: "127.0.0.1:5100/podrun-test/busybox:1.36",
    }),
    [],
  );
  t.same(findPullCredentials({ pod: podWith([]), objects: { configMaps: [], secrets }, image: PRIVATE }), []);
  t.same(findPullCredentials({ pod: podWith(["absent"]), objects: { configMaps: [], secrets }, image: PRIVATE }), []);
});

t.test("a pair found twice is given once; an entry without credentials is skipped", async (t) => {
  const secrets = [
    jsonSecret("a", { "127.0.0.1:5101/podrun-test": ["same", "pw"], "127.0.0.1:5101": ["same", "pw"] }),
    jsonSecret("b", { "https://127.0.0.1:5101": ["same", "pw"] }),
    {
      metadata: { name: "helper" },
      type: "kubernetes.io/dockerconfigjson",
      stringData: { ".dockerconfigjson": '{"auths": {"127.0.0.1:5101": {}}, "credsStore": "desktop"}' },
    },
  ];
  const credentials = findPullCredentials({
    pod: podWith(["a", "b", "helper"]),
    objects: { configMaps: [], secrets },
    image: PRIVATE,
  });
  t.same(summary(credentials), ['same@127.0.0.1:5101/podrun-test from secret "a"']);
});

t.test("legacy dockercfg secrets, from data", async (t) => {
  const secret: Secret = {
    metadata: { name: "old" },
    type: "kubernetes.io/dockercfg",
    data: { ".dockercfg": b64(JSON.stringify({ "127.0.0.1:5101": { username: "u", password: "p" } })) },
  };
  t.same(
    summary(
      findPullCredentials({ pod: podWith(["old"]), objects: { configMaps: [], secrets: [secret] }, image: PRIVATE }),
    ),
    ['u@127.0.0.1:5101 from secret "old"'],
  );
});

t.test("a pull secret that cannot be decoded fails the pull, naming the secret and never the value", async (t) => {
  const secret: Secret = {
    metadata: { name: "broken" },
    type: "kubernetes.io/dockerconfigjson",
    stringData: { ".dockerconfigjson": '{"auths": {"r": {"auth": "aHVudGVyMg"}}}' },
  };
  t.throws(
    () =>
      findPullCredentials({ pod: podWith(["broken"]), objects: { configMaps: [], secrets: [secret] }, image: PRIVATE }),
    new PodrunError(
      "ErrImagePull",
      'secret "broken": unable to parse auth field, must be formatted as base64(username:password)',
    ),
  );
});

t.test("the auth file comes after the pull secrets", async (t) => {
  const path = join(dir, "auth.json");
  await writeFile(path, auths({ "127.0.0.1:5101": ["fromfile", "pf"], "docker.io": ["hub", "ph"] }));
  const authFile = await readAuthFile(path);
  const secrets = [jsonSecret("regcred", { "127.0.0.1:5101": ["fromsecret", "ps"] })];
  t.same(
    summary(
      findPullCredentials({
        pod: podWith(["regcred"]),
        objects: { configMaps: [], secrets },
        authFile,
        image: PRIVATE,
      }),
    ),
    ['fromsecret@127.0.0.1:5101 from secret "regcred"', `fromfile@127.0.0.1:5101 from --authfile ${path}`],
  );
  t.same(
    summary(
      findPullCredentials({
        pod: podWith([]),
        objects: { configMaps: [], secrets: [] },
        authFile,
        image: "docker.io/library/busybox",
      }),
    ),
    [`hub@docker.io from --authfile ${path}`],
  );
  // podman login's key for Docker Hub serves short names too (the kubelet's keyring knows only index.docker.io)
  t.same(
    summary(
      findPullCredentials({
        pod: podWith([]),
        objects: { configMaps: [], secrets: [] },
        authFile,
        image: "busybox:1.36",
      }),
    ),
    [`hub@docker.io from --authfile ${path}`],
  );
  const secrets2 = [jsonSecret("hub", { "docker.io": ["secret", "p"] })];
  t.same(
    findPullCredentials({
      pod: podWith(["hub"]),
      objects: { configMaps: [], secrets: secrets2 },
      image: "busybox:1.36",
    }),
    [],
    "a pull secret's docker.io key does not (the kubelet's rule)",
  );
});

t.test("readAuthFile: one-line errors naming the file, never a value", async (t) => {
  const bad = join(dir, "bad.json");
  await writeFile(bad, '{"auths": {"r": {"auth": "aHVudGVyMg"}}}');
  const garbage = join(dir, "garbage.json");
  await writeFile(garbage, "hunter2 {");
  const cases: [path: string, message: string][] = [
    [join(dir, "missing.json"), `auth file ${join(dir, "missing.json")}: no such file`],
    [dir, `auth file ${dir}: is a directory`],
    [bad, `auth file ${bad}: unable to parse auth field, must be formatted as base64(username:password)`],
    [garbage, `auth file ${garbage}: invalid JSON`],
  ];
  for (const [path, message] of cases) await t.rejects(readAuthFile(path), new UsageError(message), message);
  if (process.getuid?.() !== 0) {
    const locked = join(dir, "locked.json");
    await writeFile(locked, "{}");
    await chmod(locked, 0o000);
    await t.rejects(readAuthFile(locked), new UsageError(`auth file ${locked}: permission denied`));
  }
});
