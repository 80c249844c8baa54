import type { PodSpec } from "kubernetes-types/core/v1.js";
import t from "tap";
import { buildStopLabels, readStopLabels } from "../../../lib/pod/spec/stop-labels.js";
import {
  containerMountPath,
  findMemoryVolumesOnDisk,
  findTmpfsPropagation,
  parseQuantityBytes,
  planContainerMounts,
  planPodVolumes,
  volumeRuntimeName,
} from "../../../lib/pod/volumes/volume-plan.js";

const identity = { name: "web", namespace: "ci", uid: "u-1" };

const spec: PodSpec = {
  volumes: [
    { name: "data", emptyDir: {} },
    { name: "unused", emptyDir: {} },
    { name: "mem-once", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
    { name: "mem-shared", emptyDir: { medium: "Memory" } },
    { name: "conf", configMap: { name: "c" } },
  ],
  initContainers: [
    {
      name: "init",
      image: "x",
      volumeMounts: [
        { name: "data", mountPath: "/data" },
        { name: "mem-shared", mountPath: "/shm" },
      ],
    },
  ],
  containers: [
    {
      name: "app",
      image: "x",
      volumeMounts: [
        { name: "data", mountPath: "/srv/data", readOnly: true },
        { name: "mem-once", mountPath: "/tmp" },
        { name: "mem-shared", mountPath: "/shm" },
        { name: "conf", mountPath: "/etc/conf" },
      ],
    },
  ],
};

t.test("engine volumes: mounted emptyDirs, except a Memory one mounted once", async (t) => {
  t.equal(volumeRuntimeName(identity, "data"), "ci_web_data");
  t.same(planPodVolumes(spec, identity), [
    {
      name: "ci_web_data",
      volume: "data",
      labels: {
        "io.kubernetes.pod.name": "web",
        "io.kubernetes.pod.namespace": "ci",
        "io.kubernetes.pod.uid": "u-1",
        "io.podrun.managed": "true",
        "io.podrun.volume": "data",
      },
    },
    {
      name: "ci_web_mem-shared",
      volume: "mem-shared",
      labels: {
        "io.kubernetes.pod.name": "web",
        "io.kubernetes.pod.namespace": "ci",
        "io.kubernetes.pod.uid": "u-1",
        "io.podrun.managed": "true",
        "io.podrun.volume": "mem-shared",
      },
    },
  ]);
  t.same(planPodVolumes({ containers: [{ name: "a", image: "x" }] }, identity), [], "no volumes");
  t.same(findMemoryVolumesOnDisk(spec), [3], "the shared Memory volume is the one validation warns about");
});

t.test(
  "mountPropagation: a bind slave or shared with the host; an emptyDir becomes a bind of its engine volume; None plans as before",
  async (t) => {
    const propagated: PodSpec = {
      volumes: [
        { name: "host", hostPath: { path: "/mnt" } },
        { name: "data", emptyDir: {} },
        { name: "conf", configMap: { name: "c" } },
        { name: "mem", emptyDir: { medium: "Memory" } },
      ],
      containers: [
        {
          name: "app",
          image: "x",
          volumeMounts: [
            { name: "host", mountPath: "/host", mountPropagation: "HostToContainer" },
            { name: "data", mountPath: "/data", mountPropagation: "Bidirectional" },
            { name: "conf", mountPath: "/conf", mountPropagation: "None" },
            { name: "mem", mountPath: "/mem", mountPropagation: "HostToContainer" },
          ],
        },
      ],
    };
    t.same(planContainerMounts(propagated, identity, propagated.containers[0]!), [
      { volume: "host", target: "/host", readOnly: false, bind: { from: "host", path: "/mnt" }, propagation: "rslave" },
      {
        volume: "ci_web_data",
        target: "/data",
        readOnly: false,
        bind: { from: "engine-volume" },
        propagation: "rshared",
      },
      { volume: "conf", target: "/conf", readOnly: true, bind: { from: "files" } },
      { volume: "ci_web_mem", target: "/mem", readOnly: false, tmpfs: true, tmpfsSizeBytes: undefined },
    ]);
    t.same(
      findTmpfsPropagation(propagated),
      [{ list: "containers", container: 0, mount: 3 }],
      "the own tmpfs's propagation is named",
    );
    t.same(findTmpfsPropagation(spec), [], "none set");
  },
);

t.test("mounts of a container, in manifest order", async (t) => {
  t.same(planContainerMounts(spec, identity, spec.containers[0]!), [
    { volume: "ci_web_data", target: "/srv/data", readOnly: true },
    { volume: "ci_web_mem-once", target: "/tmp", readOnly: false, tmpfs: true, tmpfsSizeBytes: 64 * 1024 * 1024 },
    { volume: "ci_web_mem-shared", target: "/shm", readOnly: false },
    { volume: "conf", target: "/etc/conf", readOnly: true, bind: { from: "files" } },
  ]);
  t.same(planContainerMounts(spec, identity, spec.initContainers![0]!), [
    { volume: "ci_web_data", target: "/data", readOnly: false },
    { volume: "ci_web_mem-shared", target: "/shm", readOnly: false },
  ]);
});

t.test(
  "a Memory volume mounted twice by the same container is not a tmpfs either (two tmpfs would not share)",
  async (t) => {
    const twice: PodSpec = {
      volumes: [{ name: "m", emptyDir: { medium: "Memory" } }],
      containers: [
        {
          name: "a",
          image: "x",
          volumeMounts: [
            { name: "m", mountPath: "/a" },
            { name: "m", mountPath: "/b" },
          ],
        },
      ],
    };
    t.same(
      planContainerMounts(twice, identity, twice.containers[0]!).map((m) => m.tmpfs),
      [undefined, undefined],
    );
    t.same(
      planPodVolumes(twice, identity).map((v) => v.name),
      ["ci_web_m"],
    );
  },
);

t.test("sizeLimit as bytes", async (t) => {
  t.equal(parseQuantityBytes("64Mi"), 67108864);
  t.equal(parseQuantityBytes("1Gi"), 1073741824);
  t.equal(parseQuantityBytes("500M"), 500_000_000);
  t.equal(parseQuantityBytes("1.5k"), 1500);
  t.equal(parseQuantityBytes("1e3"), 1000);
  t.equal(parseQuantityBytes(2048), 2048);
  t.equal(parseQuantityBytes("1500m"), 2, "fractions of a byte round up");
  t.equal(parseQuantityBytes("0"), undefined, "zero: the engine's default, not an unlimited tmpfs");
  t.equal(parseQuantityBytes("lots"), undefined);
});

t.test("stop labels: written at up, read back by down", async (t) => {
  const pod: PodSpec = { terminationGracePeriodSeconds: 12, containers: [] };
  const container = {
    name: "a",
    image: "x",
    ports: [{ name: "admin", containerPort: 9000 }],
    lifecycle: {
      preStop: { httpGet: { path: "/drain", port: "admin", httpHeaders: [{ name: "X-Why", value: "down" }] } },
    },
  };
  const labels = buildStopLabels(pod, container, "app");
  t.same(readStopLabels(labels), {
    gracePeriodSeconds: 12,
    preStop: { httpGet: { path: "/drain", port: 9000, httpHeaders: [{ name: "X-Why", value: "down" }] } },
  });
  t.same(buildStopLabels({ containers: [] }, { name: "i", image: "x" }, "init"), {
    "io.kubernetes.pod.terminationGracePeriod": "30",
  });
  t.same(
    buildStopLabels(pod, { name: "x", image: "x", lifecycle: { preStop: { httpGet: { port: "nope" } } } }, "app")[
      "io.kubernetes.container.preStopHandler"
    ],
    '{"httpGet":{"port":"nope"}}',
    "an unknown port name is kept as written",
  );
  t.same(
    readStopLabels({
      "io.kubernetes.container.preStopHandler": "{not json",
      "io.kubernetes.pod.terminationGracePeriod": "-1",
    }),
    {},
    "labels edited by hand: nothing",
  );
  t.same(readStopLabels({}), {});
});

t.test(
  "binds: file volumes read-only, hostPath as asked, subPath and subPathExpr of every kind; other types left out",
  async (t) => {
    const binds: PodSpec = {
      volumes: [
        { name: "cm", configMap: { name: "c" } },
        { name: "sec", secret: { secretName: "s" } },
        { name: "dn", downwardAPI: { items: [] } },
        { name: "pj", projected: { sources: [] } },
        { name: "host", hostPath: { path: "/srv", type: "Directory" } },
        { name: "ed", emptyDir: {} },
        { name: "mem", emptyDir: { medium: "Memory" } },
        { name: "nfs", nfs: { server: "s", path: "/" } },
      ],
      containers: [
        {
          name: "a",
          image: "x",
          volumeMounts: [
            { name: "cm", mountPath: "/cm", readOnly: false },
            { name: "cm", mountPath: "/one", subPath: "app.properties" },
            { name: "sec", mountPath: "/sec" },
            { name: "dn", mountPath: "/dn" },
            { name: "pj", mountPath: "/pj" },
            { name: "host", mountPath: "/h", readOnly: true },
            { name: "host", mountPath: "/h2", subPath: "logs" },
            { name: "ed", mountPath: "/e", subPathExpr: "$(POD)/x" },
            { name: "mem", mountPath: "/m", subPath: "d" },
            { name: "nfs", mountPath: "/n" },
          ],
        },
      ],
    };
    t.same(planContainerMounts(binds, identity, binds.containers[0]!), [
      { volume: "cm", target: "/cm", readOnly: true, bind: { from: "files" } },
      { volume: "cm", target: "/one", readOnly: true, bind: { from: "files", subPath: "app.properties" } },
      { volume: "sec", target: "/sec", readOnly: true, bind: { from: "files" } },
      { volume: "dn", target: "/dn", readOnly: true, bind: { from: "files" } },
      { volume: "pj", target: "/pj", readOnly: true, bind: { from: "files" } },
      { volume: "host", target: "/h", readOnly: true, bind: { from: "host", path: "/srv" } },
      { volume: "host", target: "/h2", readOnly: false, bind: { from: "host", path: "/srv", subPath: "logs" } },
      {
        volume: "ci_web_ed",
        target: "/e",
        readOnly: false,
        bind: { from: "engine-volume", subPath: "$(POD)/x", expand: true },
      },
      { volume: "ci_web_mem", target: "/m", readOnly: false, bind: { from: "engine-volume", subPath: "d" } },
    ]);
    t.same(
      planPodVolumes(binds, identity).map((v) => v.name),
      ["ci_web_ed", "ci_web_mem"],
      "a Memory volume bound by subPath needs an engine volume",
    );
    t.same(findMemoryVolumesOnDisk(binds), [6], "and validation says so");
  },
);

t.test("a subPath of a file volume carries a digest of its content; a whole mount does not", async (t) => {
  const withSub: PodSpec = {
    volumes: [{ name: "cm", configMap: { name: "c" } }],
    containers: [
      {
        name: "a",
        image: "x",
        volumeMounts: [
          { name: "cm", mountPath: "/one", subPath: "k" },
          { name: "cm", mountPath: "/all" },
        ],
      },
    ],
  };
  const pod = { metadata: { name: "web", namespace: "ci" }, spec: withSub };
  const digest = (value: string) => {
    const objects = { configMaps: [{ metadata: { name: "c", namespace: "ci" }, data: { k: value } }], secrets: [] };
    const mounts = planContainerMounts(withSub, identity, withSub.containers[0]!, { pod, identity, objects });
    t.equal(mounts[1]!.bind!.contentDigest, undefined);
    return mounts[0]!.bind!.contentDigest;
  };
  t.match(digest("one"), /^[0-9a-f]{64}$/);
  t.equal(digest("one"), digest("one"));
  t.not(digest("one"), digest("two"), "changed content, changed digest");
});

t.test("a relative mountPath is rooted at / as the kubelet does", async (t) => {
  const cases: [string, string][] = [
    ["/srv/data", "/srv/data"],
    ["/srv//data/", "/srv//data/"],
    ["data", "/data"],
    ["data/./x/", "/data/x"],
    ["a/../../b", "/b"],
    ["C:\\data", "/C:\\data"],
  ];
  for (const [mountPath, target] of cases) t.equal(containerMountPath(mountPath), target, mountPath);
});

t.test(
  "fsGroup: engine volumes carry the group, a container's own tmpfs too; without it nothing changes",
  async (t) => {
    const withGroup: PodSpec = { ...spec, securityContext: { fsGroup: 2000 } };
    t.same(
      planPodVolumes(withGroup, identity).map((v) => [v.volume, v.group]),
      [
        ["data", 2000],
        ["mem-shared", 2000],
      ],
    );
    t.same(planContainerMounts(withGroup, identity, withGroup.containers[0]!)[1], {
      volume: "ci_web_mem-once",
      target: "/tmp",
      readOnly: false,
      tmpfs: true,
      tmpfsSizeBytes: 64 * 1024 * 1024,
      tmpfsGroup: 2000,
    });
    t.notOk(planPodVolumes(spec, identity).some((v) => "group" in v));
    t.notOk(
      planContainerMounts(spec, identity, spec.containers[0]!).some((m) => "tmpfsGroup" in m),
      "no new key: the spec hash of a pod without fsGroup is unchanged",
    );
  },
);
