// spec.resources is acted on (no "not supported" warning); what an engine cannot make of it is a
// warning that names the engine, kept apart for `up` to print on that engine alone.
import t from "tap";
import { up } from "../../../lib/commands/up.js";
import { checkManifest } from "../../../lib/kinds/read-manifests.js";
import { createCommandWorld } from "../../harness/command-io.js";

const manifest = (resources: string, extra = "") => `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
${extra}  resources:
${resources}
  containers:
    - name: app
      image: busybox:1.36
      command: ["sleep", "600"]
`;

t.test(
  "cpu and memory: no engine-free warning; docker and nerdctl are named, podman only for a memory request",
  async (t) => {
    const loaded = checkManifest({
      name: "pod.yaml",
      text: manifest("    limits: { cpu: 500m, memory: 64Mi }\n    requests: { cpu: 250m, memory: 32Mi }"),
    });
    t.same(loaded.warnings, []);
    t.same(loaded.engineWarnings, {
      docker: [
        "pod.yaml:6:3: Warning: spec.resources: docker has no pod-level cgroup to limit: ignored; each container's own resources still apply",
      ],
      nerdctl: [
        "pod.yaml:6:3: Warning: spec.resources: nerdctl has no pod-level cgroup to limit: ignored; each container's own resources still apply",
      ],
      podman: [
        "pod.yaml:8:28: Warning: spec.resources.requests.memory: podman's pod create has no memory reservation: ignored; each container's own request still applies",
      ],
    });
    const limitsOnly = checkManifest({ name: "pod.yaml", text: manifest("    limits: { memory: 64Mi }") });
    t.same(Object.keys(limitsOnly.engineWarnings ?? {}), ["docker", "nerdctl"], "podman makes all of it");
  },
);

t.test("hugepages alone are not acted on: the usual warning, no engine's", async (t) => {
  const loaded = checkManifest({
    name: "pod.yaml",
    text: manifest("    limits: { memory: 64Mi, hugepages-2Mi: 2Mi }"),
  });
  t.same(loaded.warnings, [
    "pod.yaml:7:29: Warning: spec.resources.limits.hugepages-2Mi: not supported by podrun yet: ignored",
  ]);
  t.same(Object.keys(loaded.engineWarnings ?? {}), ["docker", "nerdctl"]);
});

t.test("a hostNetwork pod: one warning for every engine", async (t) => {
  const loaded = checkManifest({
    name: "pod.yaml",
    text: manifest("    limits: { memory: 64Mi }", "  hostNetwork: true\n"),
  });
  t.same(loaded.warnings, [
    "pod.yaml:7:3: Warning: spec.resources: not applied by podrun to a hostNetwork pod: ignored; each container's own resources still apply",
  ]);
  t.equal(loaded.engineWarnings, undefined);
});

for (const [runtime, expected] of [
  ["docker", /Warning: spec\.resources: docker has no pod-level cgroup/],
  ["podman", /Warning: spec\.resources\.requests\.memory: podman's pod create has no memory reservation/],
] as const) {
  t.test(`up on ${runtime} prints that engine's warnings and no other's`, async (t) => {
    const world = await createCommandWorld(t);
    const file = await world.manifest(
      "pod.yaml",
      manifest("    limits: { memory: 64Mi }\n    requests: { memory: 32Mi }"),
    );
    world.nextCommand();
    await up({
      files: [file],
      publishAll: false,
      parallelPulls: 1,
      keepOnFailure: false,
      dryRun: false,
      json: false,
      ...world.io,
      runtime,
    });
    const warnings = world.stderr.lines().filter((line) => line.includes("Warning"));
    t.equal(warnings.length, 1, warnings.join("\n"));
    t.match(warnings[0], expected);
  });
}
