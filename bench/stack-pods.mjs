// What bench/stack.sh runs beside `podrun up --wait`, derived from the same manifests so that the
// two cannot drift apart. Usage: node bench/stack-pods.mjs MANIFEST_DIR OUT_DIR. It writes:
//   OUT_DIR/floor/<group>/<ordinal>/{name,image,period,command,probe}: the floor's containers. The
//     groups start at once; inside a group each pod starts once the one before it is Ready, as a
//     StatefulSet's OrderedReady does (a Deployment's replicas and a Parallel StatefulSet's pods
//     are one group each). command and probe are NUL-separated argv.
//   OUT_DIR/kube.yaml: the same objects for `podman kube play`. podman 4 plays no StatefulSet (it
//     skips the document), so each of its pods is given as a bare Pod of its template. Every pod
//     carries the label podrun-bench=stack, for the clean-up to find what a cut-short play made.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import YAML from "yaml";

const [dir, out] = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => /\.(ya?ml|json)$/.test(f))
  .sort();
const objects = files.flatMap((f) =>
  YAML.parseAllDocuments(readFileSync(join(dir, f), "utf8"))
    .map((d) => d.toJS())
    .filter(Boolean),
);

let groups = 0;
const kube = [];
for (const o of objects) {
  const name = o.metadata.name;
  const replicas = o.spec.replicas ?? 1;
  const pods = Array.from({ length: replicas }, (_, i) => `${name}-${i}`);
  if (o.kind === "Deployment") {
    pods.forEach((pod) => writeGroup([pod], o.spec.template));
    kube.push({ ...o, spec: { ...o.spec, template: labelled(o.spec.template) } });
  } else if (o.kind === "StatefulSet") {
    if (o.spec.podManagementPolicy === "Parallel") pods.forEach((pod) => writeGroup([pod], o.spec.template));
    else writeGroup(pods, o.spec.template);
    for (const pod of pods) {
      const { metadata, spec } = labelled(o.spec.template);
      kube.push({ apiVersion: "v1", kind: "Pod", metadata: { ...metadata, name: pod }, spec });
    }
  } else {
    throw new Error(`${name}: the stack bench runs Deployments and StatefulSets only, not ${o.kind}`);
  }
}
writeFileSync(join(out, "kube.yaml"), kube.map((o) => YAML.stringify(o)).join("---\n"));

function labelled(template) {
  const metadata = template.metadata ?? {};
  return { ...template, metadata: { ...metadata, labels: { ...metadata.labels, "podrun-bench": "stack" } } };
}

// One group of pods, started in order; each pod has one container with an exec readiness probe.
function writeGroup(pods, template) {
  const [c, ...more] = template.spec.containers;
  const probe = c.readinessProbe?.exec?.command;
  if (more.length > 0 || !probe || !c.command)
    throw new Error(`${pods[0]}: one container, a command and an exec probe`);
  const group = join(out, "floor", String(groups++).padStart(2, "0"));
  pods.forEach((pod, i) => {
    const d = join(group, String(i).padStart(2, "0"));
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, "name"), pod);
    writeFileSync(join(d, "image"), c.image);
    writeFileSync(join(d, "period"), String(c.readinessProbe.periodSeconds ?? 10));
    writeFileSync(join(d, "command"), [...c.command, ...(c.args ?? [])].join("\0"));
    writeFileSync(join(d, "probe"), probe.join("\0"));
  });
}
