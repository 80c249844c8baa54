// Golden argv and output parsing for volumes, per dialect: `-v`/`--tmpfs`/`--mount type=bind` on
// create, `volume create|rm|ls|inspect`, and the three CLIs' `volume ls --format json` shapes. The docker and
// podman samples were printed by docker 28.2 (dockerd 20.10) and podman 4.3.1; the nerdctl one
// follows its volume ls source (one JSON object per line, labels joined as one string).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { PodrunError } from "../../lib/errors.js";
import { CliRuntime } from "../../lib/runtime/cli-runtime.js";
import {
  buildCreateArgs,
  buildVolumeCreateArgs,
  buildVolumeInspectArgs,
  buildVolumeListArgs,
  buildVolumeRemoveArgs,
  formatMountArgs,
} from "../../lib/runtime/create-args.js";
import { DIALECTS, isOnlyNotFound } from "../../lib/runtime/dialects.js";
import type { RuntimeCommand, VolumeMount } from "../../lib/runtime/types.js";
import { parseLabelString, parseVolumeList } from "../../lib/runtime/volume-list.js";

const { docker, podman, nerdctl } = DIALECTS;

const mounts: VolumeMount[] = [
  { volume: "ci_web_data", target: "/data", readOnly: false },
  { volume: "ci_web_data", target: "/ro", readOnly: true },
  { volume: "ci_web_mem", target: "/mem", readOnly: false, tmpfs: true, tmpfsSizeBytes: 1048576 },
  { volume: "ci_web_scratch", target: "/scratch", readOnly: true, tmpfs: true },
];

t.test("mounts: -v with nocopy where the CLI copies image files up, --tmpfs that allows exec", async (t) => {
  const tmpfs = ["--tmpfs", "/mem:rw,exec,size=1048576", "--tmpfs", "/scratch:ro,exec"];
  t.same(formatMountArgs(docker, mounts), [
    "-v",
    "ci_web_data:/data:nocopy",
    "-v",
    "ci_web_data:/ro:ro,nocopy",
    ...tmpfs,
  ]);
  t.same(formatMountArgs(podman, mounts), [
    "-v",
    "ci_web_data:/data:nocopy",
    "-v",
    "ci_web_data:/ro:ro,nocopy",
    ...tmpfs,
  ]);
  t.same(formatMountArgs(nerdctl, mounts), ["-v", "ci_web_data:/data", "-v", "ci_web_data:/ro:ro", ...tmpfs]);
  t.same(formatMountArgs(docker, []), []);
  const error = (() => {
    try {
      formatMountArgs(docker, [{ volume: "v", target: "/a:b", readOnly: false }]);
    } catch (e) {
      return e;
    }
    return undefined;
  })();
  t.ok(
    error instanceof PodrunError && error.reason === "CreateContainerConfigError",
    "a path with a colon cannot be said on the command line",
  );
  t.match((error as Error).message, 'volume mount path "/a:b"');
});

t.test("create: the mounts follow the environment, before --pull", async (t) => {
  const args = buildCreateArgs(
    docker,
    {
      name: "ci_web_app",
      image: "busybox:1",
      labels: {},
      hostNetwork: true,
      restartPolicy: "no",
      mounts: mounts.slice(0, 1),
    },
    { byName: [], childEnv: {} },
  );
  t.same(args, [
    "create",
    "--name",
    "ci_web_app",
    "--network",
    "host",
    "--restart",
    "no",
    "-v",
    "ci_web_data:/data:nocopy",
    "--pull",
    "never",
    "busybox:1",
  ]);
});

t.test("volume create, rm, ls", async (t) => {
  const labels = { "io.kubernetes.pod.name": "web", "io.podrun.managed": "true", "io.podrun.volume": "data" };
  const createArgs = [
    "volume",
    "create",
    "--label",
    "io.kubernetes.pod.name=web",
    "--label",
    "io.podrun.managed=true",
    "--label",
    "io.podrun.volume=data",
    "ci_web_data",
  ];
  t.same(buildVolumeCreateArgs("ci_web_data", labels), createArgs);
  t.same(
    buildVolumeRemoveArgs(docker, ["a", "b", "a"]),
    [["volume", "rm", "-f", "a", "b"]],
    "docker: -f makes a missing one a success",
  );
  t.same(
    buildVolumeRemoveArgs(podman, ["a", "b"]),
    [["volume", "rm", "a", "b"]],
    "podman: no -f, which would remove the containers using it",
  );
  t.same(
    buildVolumeRemoveArgs(nerdctl, ["a", "b"]),
    [
      ["volume", "rm", "a"],
      ["volume", "rm", "b"],
    ],
    "nerdctl: one per call",
  );
  t.same(buildVolumeRemoveArgs(docker, []), []);
  t.same(buildVolumeListArgs({ "io.kubernetes.pod.name": "web", "io.podrun.managed": "true" }), [
    "volume",
    "ls",
    "--format",
    "json",
    "--filter",
    "label=io.kubernetes.pod.name=web",
    "--filter",
    "label=io.podrun.managed=true",
  ]);
});

t.test("missing volumes on removal are a success in each CLI's words", async (t) => {
  t.ok(isOnlyNotFound(docker, "Error response from daemon: get pr-b: no such volume"));
  t.ok(isOnlyNotFound(podman, 'Error: no volume with name "pr-b" found: no such volume'));
  t.ok(isOnlyNotFound(nerdctl, 'time="2024-05-01T10:00:00Z" level=fatal msg="volume \\"pr-b\\" not found: not found"'));
  t.notOk(isOnlyNotFound(docker, "Error response from daemon: remove pr-a: volume is in use - [8d5462312037]"));
  t.notOk(
    isOnlyNotFound(
      podman,
      "Error: volume pr-a is being used by the following container(s): 1234: volume is being used",
    ),
  );
});

const DOCKER_LS = [
  '{"Availability":"N/A","Driver":"local","Group":"N/A","Labels":"io.kubernetes.pod.name=web,io.kubernetes.pod.namespace=ci,io.podrun.managed=true,io.podrun.volume=data","Links":"N/A","Mountpoint":"/var/lib/docker/volumes/ci_web_data/_data","Name":"ci_web_data","Scope":"local","Size":"N/A","Status":"N/A"}',
  '{"Availability":"N/A","Driver":"local","Group":"N/A","Labels":"","Links":"N/A","Mountpoint":"/var/lib/docker/volumes/other/_data","Name":"other","Scope":"local","Size":"N/A","Status":"N/A"}',
].join("\n");

const PODMAN_LS = `[
  {
    "Name": "ci_web_data",
    "Driver": "local",
    "Mountpoint": "/var/lib/containers/storage/volumes/ci_web_data/_data",
    "CreatedAt": "2026-11-30T06:34:59.295745626Z",
    "Labels": {
      "io.kubernetes.pod.name": "web",
      "io.kubernetes.pod.namespace": "ci",
      "io.podrun.managed": "true",
      "io.podrun.volume": "data"
    },
    "Scope": "local",
    "Options": {},
    "MountCount": 0,
    "NeedsCopyUp": true,
    "NeedsChown": true
  },
  {
    "Name": "ci_api_data",
    "Driver": "local",
    "Labels": {
      "io.kubernetes.pod.name": "api",
      "io.kubernetes.pod.namespace": "ci",
      "io.podrun.managed": "true"
    }
  },
  { "Name": "bare", "Driver": "local", "Labels": null }
]`;

const NERDCTL_LS = [
  'time="2024-05-01T10:00:00Z" level=warning msg="some notice"',
  '{"Driver":"local","Labels":"io.kubernetes.pod.name=web,io.kubernetes.pod.namespace=ci,io.podrun.managed=true,io.podrun.volume=data","Mountpoint":"/var/lib/nerdctl/1935db59/volumes/default/ci_web_data/_data","Name":"ci_web_data","Scope":"local","Size":""}',
].join("\n");

t.test("volume ls output of each CLI", async (t) => {
  const web = {
    name: "ci_web_data",
    labels: {
      "io.kubernetes.pod.name": "web",
      "io.kubernetes.pod.namespace": "ci",
      "io.podrun.managed": "true",
      "io.podrun.volume": "data",
    },
  };
  t.same(parseVolumeList(DOCKER_LS), [web, { name: "other", labels: {} }]);
  t.same(parseVolumeList(NERDCTL_LS), [web], "a log line before the JSON is skipped");
  t.same(
    parseVolumeList(PODMAN_LS).map((v) => v.name),
    ["ci_web_data", "ci_api_data", "bare"],
  );
  t.same(parseVolumeList(PODMAN_LS)[0], web);
  t.same(parseVolumeList(PODMAN_LS)[2]!.labels, {}, "null labels");
  // podman 4.3 OR-s two label filters: both pods came back; the labels are checked again.
  t.same(parseVolumeList(PODMAN_LS, { "io.kubernetes.pod.name": "web", "io.podrun.managed": "true" }), [web]);
  t.same(parseVolumeList(DOCKER_LS, { "io.podrun.managed": "true" }), [web]);
  t.same(parseVolumeList(""), []);
  t.same(parseVolumeList("[]"), []);
});

t.test("docker's joined label string", async (t) => {
  t.same(parseLabelString("a=1,b=x=y,c="), { a: "1", b: "x=y", c: "" });
  t.same(parseLabelString("a=1,2,b=3"), { a: "1,2", b: "3" }, "a piece without = continues the previous value");
  t.same(parseLabelString(""), {});
});

t.test("dry run: volume commands are recorded, never run", async (t) => {
  for (const name of ["docker", "podman", "nerdctl"] as const) {
    const recorded: RuntimeCommand[] = [];
    const runtime = new CliRuntime({
      name,
      binary: `/nonexistent/${name}`,
      dryRun: { record: (c) => recorded.push(c) },
    });
    await runtime.createVolume("ci_web_data", { "io.podrun.volume": "data" });
    await runtime.removeVolumes(["ci_web_data", "ci_web_cache"]);
    t.same(await runtime.listVolumes({ "io.podrun.managed": "true" }), []);
    const rm =
      name === "nerdctl"
        ? [
            ["volume", "rm", "ci_web_data"],
            ["volume", "rm", "ci_web_cache"],
          ]
        : [["volume", "rm", ...(name === "docker" ? ["-f"] : []), "ci_web_data", "ci_web_cache"]];
    t.same(
      recorded.map((c) => c.args),
      [
        ["volume", "create", "--label", "io.podrun.volume=data", "ci_web_data"],
        ...rm,
        ["volume", "ls", "--format", "json", "--filter", "label=io.podrun.managed=true"],
      ],
      name,
    );
  }
});

t.test(
  "bind mounts: --mount type=bind on all three CLIs, read-only when asked; a path --mount cannot carry is an error",
  async (t) => {
    const binds: VolumeMount[] = [
      {
        volume: "conf",
        target: "/etc/conf",
        readOnly: true,
        bind: { from: "files" },
        source: "/state/pods/docker/ci_web/volumes/conf",
      },
      { volume: "host", target: "/srv/a:b", readOnly: false, bind: { from: "host", path: "/srv" }, source: "/srv/x:y" },
    ];
    const expected = [
      "--mount",
      "type=bind,source=/state/pods/docker/ci_web/volumes/conf,target=/etc/conf,readonly",
      "--mount",
      "type=bind,source=/srv/x:y,target=/srv/a:b",
    ];
    for (const dialect of [docker, podman, nerdctl])
      t.same(formatMountArgs(dialect, binds), expected, `${dialect.name}: a colon is fine in --mount`);
    for (const [source, target] of [
      ["/srv/a,b", "/x"],
      ["/srv", "/x,y"],
      ['/srv/"q"', "/x"],
      ["/srv/a\nb", "/x"],
    ] as const) {
      let error: unknown;
      try {
        formatMountArgs(podman, [{ volume: "v", target, readOnly: false, bind: { from: "host" }, source }]);
      } catch (e) {
        error = e;
      }
      t.ok(
        error instanceof PodrunError && error.reason === "CreateContainerConfigError",
        `${JSON.stringify(source)} → ${JSON.stringify(target)} refused`,
      );
      t.match((error as Error).message, /--mount cannot carry a path containing a comma/);
    }
    t.throws(
      () =>
        formatMountArgs(docker, [{ volume: "v", target: "/x", readOnly: false, bind: { from: "host", path: "/srv" } }]),
      /not resolved/,
      "a bind must be resolved first",
    );
  },
);

t.test("mountPropagation: bind-propagation on the bind, the same on all three CLIs", async (t) => {
  const binds: VolumeMount[] = [
    {
      volume: "host",
      target: "/mnt/host",
      readOnly: true,
      bind: { from: "host", path: "/mnt" },
      source: "/mnt",
      propagation: "rslave",
    },
    {
      volume: "ci_web_data",
      target: "/data",
      readOnly: false,
      bind: { from: "engine-volume" },
      source: "/var/lib/docker/volumes/ci_web_data/_data",
      propagation: "rshared",
    },
  ];
  const expected = [
    "--mount",
    "type=bind,source=/mnt,target=/mnt/host,readonly,bind-propagation=rslave",
    "--mount",
    "type=bind,source=/var/lib/docker/volumes/ci_web_data/_data,target=/data,bind-propagation=rshared",
  ];
  for (const dialect of [docker, podman, nerdctl]) t.same(formatMountArgs(dialect, binds), expected, dialect.name);
});

t.test("volume inspect: the same argv on all three CLIs; the Mountpoint read from each one's JSON", async (t) => {
  t.same(buildVolumeInspectArgs("ci_web_data"), ["volume", "inspect", "ci_web_data"]);
  for (const name of ["docker", "podman", "nerdctl"] as const) {
    const recorded: RuntimeCommand[] = [];
    const runtime = new CliRuntime({ name, binary: name, dryRun: { record: (c) => recorded.push(c) } });
    t.equal(
      await runtime.inspectVolumeMountpoint("ci_web_data"),
      "<mountpoint of ci_web_data>",
      `${name}: a dry run names the directory`,
    );
    t.same(
      recorded.map((c) => c.args),
      [["volume", "inspect", "ci_web_data"]],
    );
  }
  // What each CLI prints for `volume inspect` (docker 20.10 and podman 4.3.1 on the test machine;
  // nerdctl's dockercompat volume, one array).
  const outputs = {
    docker:
      '[\n    {\n        "CreatedAt": "2026-12-01T03:55:33Z",\n        "Driver": "local",\n        "Labels": null,\n        "Mountpoint": "/var/lib/docker/volumes/ci_web_data/_data",\n        "Name": "ci_web_data",\n        "Options": null,\n        "Scope": "local"\n    }\n]\n',
    podman:
      '[\n     {\n          "Name": "ci_web_data",\n          "Driver": "local",\n          "Mountpoint": "/var/lib/containers/storage/volumes/ci_web_data/_data",\n          "Labels": {},\n          "Scope": "local"\n     }\n]\n',
    nerdctl:
      '[\n    {\n        "Name": "ci_web_data",\n        "Mountpoint": "/var/lib/nerdctl/1935db59/volumes/default/ci_web_data/_data",\n        "Labels": {}\n    }\n]\n',
  };
  const dir = await mkdtemp(join(tmpdir(), "podrun-fake-cli-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [name, output] of Object.entries(outputs) as [keyof typeof outputs, string][]) {
    const binary = join(dir, name);
    await writeFile(join(dir, `${name}.json`), output);
    // Prints the sample for the volume it knows, and the CLI's "no such volume" otherwise.
    await writeFile(
      binary,
      `#!/bin/sh\nif [ "$3" = ci_web_data ]; then cat "${join(dir, `${name}.json`)}"; else echo "Error: no such volume $3" >&2; echo "[]"; exit 1; fi\n`,
      { mode: 0o755 },
    );
    const runtime = new CliRuntime({ name, binary });
    t.equal(
      await runtime.inspectVolumeMountpoint("ci_web_data"),
      (JSON.parse(output) as [{ Mountpoint: string }])[0].Mountpoint,
      name,
    );
    await t.rejects(runtime.inspectVolumeMountpoint("gone"), /volume gone not found/, `${name}: a missing volume`);
  }
});

t.test(
  "fsGroup: a tmpfs gets mode=3777,gid=N where the CLI takes it; podman's volume create gets o=gid=N",
  async (t) => {
    const tmpfs: VolumeMount[] = [
      { volume: "ci_web_mem", target: "/mem", readOnly: false, tmpfs: true, tmpfsSizeBytes: 1048576, tmpfsGroup: 2000 },
    ];
    t.same(formatMountArgs(docker, tmpfs), ["--tmpfs", "/mem:rw,exec,size=1048576,mode=3777,gid=2000"]);
    t.same(
      formatMountArgs(nerdctl, tmpfs),
      ["--tmpfs", "/mem:rw,exec,size=1048576,mode=3777,gid=2000"],
      "nerdctl: argv only, never run here",
    );
    t.same(
      formatMountArgs(podman, tmpfs),
      ["--tmpfs", "/mem:rw,exec,size=1048576"],
      "podman 4.3 refuses gid=: the kernel's 1777 (a Warning says so)",
    );
    t.same(buildVolumeCreateArgs("ci_web_data", { "io.podrun.volume": "data" }, 2000), [
      "volume",
      "create",
      "--label",
      "io.podrun.volume=data",
      "--opt",
      "o=gid=2000",
      "ci_web_data",
    ]);
    for (const name of ["docker", "podman", "nerdctl"] as const) {
      const recorded: RuntimeCommand[] = [];
      const runtime = new CliRuntime({
        name,
        binary: `/nonexistent/${name}`,
        dryRun: { record: (c) => recorded.push(c) },
      });
      await runtime.createVolume("ci_web_data", {}, { group: 2000 });
      await runtime.createVolume("ci_web_other", {});
      const group = name === "podman" ? ["--opt", "o=gid=2000"] : [];
      t.same(
        recorded.map((c) => c.args),
        [
          ["volume", "create", ...group, "ci_web_data"],
          ["volume", "create", "ci_web_other"],
        ],
        name,
      );
    }
  },
);
