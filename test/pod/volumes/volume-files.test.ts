// The files of configMap, secret, downwardAPI and projected volumes, as the kubelet's volume
// plugins compute them: names, nested paths, modes, items, optional, projections, downward formats.
import type { Pod, Volume } from "kubernetes-types/core/v1.js";
import t from "tap";
import type { Payload } from "../../../lib/pod/volumes/atomic-writer.js";
import {
  cleanPath,
  isFileVolume,
  planVolumeFiles,
  type VolumeFilesContext,
} from "../../../lib/pod/volumes/volume-files.js";
import { readSecretData } from "../../../lib/manifest/pod-objects.js";

const identity = { name: "web", namespace: "ci", uid: "u-1" };
const pod: Pod = {
  metadata: { name: "web", namespace: "ci", labels: { tier: "back", app: "web" }, annotations: { note: 'say "hi"\n' } },
  spec: {
    containers: [{ name: "app", image: "x", resources: { limits: { memory: "64Mi" }, requests: { cpu: "250m" } } }],
  },
};
const ctx: VolumeFilesContext = {
  pod,
  identity,
  nodeName: "node-1",
  nodeCapacity: () => ({ cpuCores: 4, memoryBytes: 8 * 2 ** 30, ephemeralStorageBytes: 100 * 2 ** 30 }),
  objects: {
    configMaps: [
      {
        metadata: { name: "cfg", namespace: "ci" },
        data: { "app.properties": "a=1\n", plain: "hello" },
        binaryData: { "logo.bin": Buffer.from([0, 1, 2, 255]).toString("base64") },
      },
      { metadata: { name: "cfg" }, data: { other: "namespace" } },
    ],
    secrets: [
      {
        metadata: { name: "sec", namespace: "ci" },
        data: {
          password: Buffer.from("line1\nline2\n").toString("base64"),
          token: Buffer.from("old").toString("base64"),
        },
        stringData: { token: "new" },
      },
    ],
  },
};

/** The payload as `path mode content` lines, sorted. */
function show(payload: Payload): string[] {
  return [...payload]
    .map(([path, file]) => `${path} ${file.mode.toString(8)} ${file.content.toString("latin1")}`)
    .sort();
}
const files = (volume: Omit<Volume, "name">) => show(planVolumeFiles({ name: "v", ...volume }, ctx));
const failure = (volume: Omit<Volume, "name">) => {
  try {
    planVolumeFiles({ name: "v", ...volume }, ctx);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
};

t.test(
  "configMap: every key (data and binaryData) at mode 0644 unless defaultMode; items with nested paths, dotted keys and their own mode",
  async (t) => {
    t.same(files({ configMap: { name: "cfg" } }), [
      "app.properties 644 a=1\n",
      "logo.bin 644 \x00\x01\x02\xff",
      "plain 644 hello",
    ]);
    t.same(
      files({ configMap: { name: "cfg", defaultMode: 0o600 } }).map((l) => l.split(" ").slice(0, 2).join(" ")),
      ["app.properties 600", "logo.bin 600", "plain 600"],
    );
    t.same(
      files({
        configMap: {
          name: "cfg",
          defaultMode: 0o440,
          items: [
            { key: "app.properties", path: "conf/./nested//app.ini", mode: 0o755 },
            { key: "plain", path: "plain.txt" },
          ],
        },
      }),
      ["conf/nested/app.ini 755 a=1\n", "plain.txt 440 hello"],
      "only the items, at their cleaned paths; item mode wins",
    );
    t.equal(cleanPath("a/b/"), "a/b");
  },
);

t.test("configMap: a missing object or key fails unless optional", async (t) => {
  t.equal(failure({ configMap: { name: "nope" } }), 'configmap "nope" not found');
  t.same(files({ configMap: { name: "nope", optional: true } }), [], "optional: an empty volume");
  t.equal(
    failure({ configMap: { name: "cfg", items: [{ key: "missing", path: "m" }] } }),
    "configmap references non-existent config key: missing",
  );
  t.same(
    files({
      configMap: {
        name: "cfg",
        optional: true,
        items: [
          { key: "missing", path: "m" },
          { key: "plain", path: "p" },
        ],
      },
    }),
    ["p 644 hello"],
  );
});

t.test("secret: data decoded from base64, stringData merged over it; the same rules", async (t) => {
  t.same(files({ secret: { secretName: "sec", defaultMode: 0o400 } }), [
    "password 400 line1\nline2\n",
    "token 400 new",
  ]);
  t.same(files({ secret: { secretName: "sec", items: [{ key: "password", path: "db/pass", mode: 0o440 }] } }), [
    "db/pass 440 line1\nline2\n",
  ]);
  t.equal(failure({ secret: { secretName: "nope" } }), 'secret "nope" not found');
  t.same(files({ secret: { secretName: "nope", optional: true } }), []);
  t.equal(
    failure({ secret: { secretName: "sec", items: [{ key: "k", path: "k" }] } }),
    "references non-existent secret key: k",
  );
  t.same(
    [...readSecretData({ stringData: { a: "b" } })].map(([k, v]) => `${k}=${v.toString()}`),
    ["a=b"],
  );
});

t.test(
  'downwardAPI: metadata fields, labels and annotations as sorted k="v" lines, resources with divisor',
  async (t) => {
    t.same(
      files({
        downwardAPI: {
          defaultMode: 0o444,
          items: [
            { path: "labels", fieldRef: { fieldPath: "metadata.labels" } },
            { path: "annotations", fieldRef: { fieldPath: "metadata.annotations" }, mode: 0o400 },
            { path: "meta/name", fieldRef: { fieldPath: "metadata.name" } },
            { path: "ns", fieldRef: { fieldPath: "metadata.namespace" } },
            { path: "uid", fieldRef: { fieldPath: "metadata.uid" } },
            { path: "tier", fieldRef: { fieldPath: "metadata.labels['tier']" } },
            { path: "mem", resourceFieldRef: { containerName: "app", resource: "limits.memory", divisor: "1Mi" } },
            { path: "cpu", resourceFieldRef: { containerName: "app", resource: "requests.cpu", divisor: "1m" } },
            { path: "cpu-limit", resourceFieldRef: { containerName: "app", resource: "limits.cpu" } },
          ],
        },
      }),
      [
        'annotations 400 note="say \\"hi\\"\\n"',
        "cpu 444 250",
        "cpu-limit 444 4",
        'labels 444 app="web"\ntier="back"',
        "mem 444 64",
        "meta/name 444 web",
        "ns 444 ci",
        "tier 444 back",
        "uid 444 u-1",
      ],
    );
    t.match(
      failure({
        downwardAPI: { items: [{ path: "x", resourceFieldRef: { containerName: "ghost", resource: "limits.cpu" } }] },
      }),
      /container ghost not found/,
    );
  },
);

t.test(
  "projected: sources merged in order with the volume's defaultMode; missing ones fail or are skipped",
  async (t) => {
    t.same(
      files({
        projected: {
          defaultMode: 0o440,
          sources: [
            {
              configMap: {
                name: "cfg",
                items: [
                  { key: "plain", path: "p1" },
                  { key: "app.properties", path: "same" },
                ],
              },
            },
            { secret: { name: "sec", items: [{ key: "password", path: "same", mode: 0o400 }] } },
            { downwardAPI: { items: [{ path: "name", fieldRef: { fieldPath: "metadata.name" } }] } },
            { configMap: { name: "absent", optional: true } },
            { serviceAccountToken: { path: "token" } },
          ],
        },
      }),
      ["name 440 web", "p1 440 hello", "same 400 line1\nline2\n"],
      "a later source wins a path; the token is not made",
    );
    t.equal(failure({ projected: { sources: [{ configMap: { name: "nope" } }] } }), 'configmap "nope" not found');
    t.equal(
      failure({ projected: { sources: [{ configMap: { name: "nope" } }, { secret: { name: "gone" } }] } }),
      '[configmap "nope" not found, secret "gone" not found]',
      "several: aggregated",
    );
  },
);

t.test("which volumes are files", async (t) => {
  t.same(
    [
      { configMap: {} },
      { secret: {} },
      { downwardAPI: {} },
      { projected: { sources: [] } },
      { emptyDir: {} },
      { hostPath: { path: "/" } },
    ].map((v) => isFileVolume({ name: "v", ...v })),
    [true, true, true, true, false, false],
  );
});
