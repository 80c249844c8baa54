import t from "tap";
import type { Pod } from "kubernetes-types/core/v1.js";
import { planObjects } from "../../lib/apply/plan-objects.js";
import { summarize } from "../../lib/commands/validate.js";
import { KINDS } from "../../lib/kinds/table.js";
import type { KindEntry, KindTable } from "../../lib/kinds/types.js";
import { checkManifests } from "../../lib/manifest/load-manifest.js";
import { FieldPath } from "../../lib/manifest/field-path.js";
import { ManifestError } from "../../lib/errors.js";
import { formatNotFound, parseRefs, selectByRefs } from "../../lib/kinds/workload-ref.js";
import { LABEL_OWNER } from "../../lib/runtime/types.js";

// Adding a kind is an entry of the kind table plus the kind's own module: this toy kind, a
// `Greeter` that runs `spec.count` busybox pods, is registered in a test table only, and the
// reader (validate), the run of `up` and `down`, and `ps`'s TYPE/NAME all reach it.

const GREETER: KindEntry = {
  kind: "Greeter",
  apiVersion: "example.com/v1",
  referable: false,
  resource: { plural: "greeters", singular: "greeter", short: "gr", group: "example.com" },
  ownsPods: true,
  order: 5,
  run: "pods",
  validate(value, { report }) {
    const count = (value as { spec?: { count?: unknown } }).spec?.count;
    if (typeof count !== "number" || count < 1)
      report({
        type: "Invalid",
        path: FieldPath.root().child("spec").child("count"),
        value: count,
        detail: "must be at least 1",
      });
  },
  admit(value) {
    const name = (value.metadata as { name: string }).name;
    const count = (value.spec as { count: number }).count;
    const pods: Pod[] = Array.from({ length: count }, (_, i) => ({
      metadata: { name: `${name}-${i}`, namespace: "default", labels: { [LABEL_OWNER]: `Greeter/${name}` } },
      spec: { containers: [{ name: "hello", image: "busybox" }] },
    }));
    return { kind: "Greeter", name, namespace: "default", object: value, pods, source: "" };
  },
  describe: (item) => `Greeter ${item.name} (${item.pods.length} greeting pods)`,
};

const TABLE: KindTable = { kinds: [...KINDS.kinds, GREETER], warned: KINDS.warned };

const greeter = (count: number) => `apiVersion: example.com/v1
kind: Greeter
metadata:
  name: hi
spec:
  count: ${count}
`;
const POD = `---
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: web
      image: nginx
`;

t.test("validate: the reader knows the kind only through the table", async (t) => {
  // Without its entry, a Greeter is a custom resource the reader skips with a Warning.
  const unknown = checkManifests([{ name: "g.yaml", text: greeter(2) }], { kinds: KINDS });
  t.same(unknown.items, []);
  t.match(unknown.warnings, [
    /Greeter\/hi: a custom resource \(example\.com\/v1\) that podrun does not know: not run$/,
  ]);
  const lines = (() => {
    try {
      checkManifests([{ name: "g.yaml", text: greeter(0) }], { kinds: TABLE });
      return [];
    } catch (error) {
      return (error as ManifestError).lines;
    }
  })();
  t.same(lines, ["g.yaml:6:10: spec.count: Invalid value: 0: must be at least 1"]);
  const manifest = checkManifests([{ name: "g.yaml", text: greeter(2) + POD }], { kinds: TABLE });
  t.same(summarize(manifest.files[0]!, TABLE), [
    "g.yaml: Pod web (1 container)",
    "g.yaml: Greeter hi (2 greeting pods)",
  ]);
});

t.test("up and down: its pods run after the bare pods, and are found by their owner", async (t) => {
  const manifest = checkManifests([{ name: "g.yaml", text: greeter(2) + POD }], { kinds: TABLE });
  const plan = planObjects(manifest.items, TABLE);
  t.same(
    plan.runs.map((run) => [run.pod.metadata!.name, run.owner?.kind ?? "-"]),
    [
      ["web", "-"],
      ["hi-0", "Greeter"],
      ["hi-1", "Greeter"],
    ],
  );
  t.same(
    plan.owners.map((o) => `${o.kind}/${o.name}`),
    ["Greeter/hi"],
    "down takes its pods by the owner label",
  );
  t.same(
    plan.controllers.map((o) => `${o.kind}/${o.name}`),
    ["Greeter/hi"],
    "up removes its stale pods",
  );
  t.same(plan.jobs, []);
});

t.test("ps: TYPE/NAME in every spelling the table gives, pods by the owner label", async (t) => {
  const record = (name: string, owner?: string) => ({
    name,
    appContainers: [{ labels: owner ? { [LABEL_OWNER]: owner } : {} }],
    initContainers: [],
  });
  const records = [record("web"), record("hi-0", "Greeter/hi"), record("hi-1", "Greeter/hi")] as never[];
  for (const type of ["greeter", "greeters", "gr", "Greeter", "greeters.example.com"]) {
    const { selected } = selectByRefs(records, parseRefs([`${type}/hi`], "ps", TABLE), TABLE);
    t.same(
      selected.map((r: { name: string }) => r.name),
      ["hi-0", "hi-1"],
      type,
    );
  }
  const { missing } = selectByRefs(records, parseRefs(["gr/nope"], "ps", TABLE), TABLE);
  t.same(
    missing.map((ref) => formatNotFound(ref, TABLE)),
    ['Error from server (NotFound): greeters.example.com "nope" not found'],
  );
  t.throws(() => parseRefs(["gr/hi"], "ps"), /not "gr"/, "the default table has no such kind");
});
