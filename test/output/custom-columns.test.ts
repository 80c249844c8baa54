import t from "tap";
import { UsageError } from "../../lib/errors.js";
import { customColumnRows, parseCustomColumns } from "../../lib/output/custom-columns.js";
import { formatTable } from "../../lib/output/table.js";

// kubectl's `-o custom-columns=…`: the examples of `kubectl get --help` and kubectl's reference
// pages, and kubectl's errors (k8s.io/kubectl/pkg/cmd/get/customcolumn.go and its tests).

/** The message of what fn throws, and whether it is a UsageError. */
function usageError(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof UsageError ? error.message : `not a UsageError: ${String(error)}`;
  }
  return undefined;
}

const PODS = [
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default", resourceVersion: "610995", labels: { tier: "fe", app: "web" } },
    spec: {
      nodeName: null,
      containers: [
        { name: "app", image: "registry.k8s.io/coredns:1.6.2" },
        { name: "sidecar", image: "busybox" },
      ],
    },
  },
  {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "db", namespace: "default" },
    spec: { nodeName: "node-1", containers: [{ name: "postgres", image: "postgres:16" }] },
  },
];

const rows = (spec: string, options?: { noHeaders?: boolean }) =>
  customColumnRows(parseCustomColumns(spec), PODS, options);

t.test("the spec: HEADER:PATH pairs, each path in any of kubectl's four spellings", async (t) => {
  t.same(parseCustomColumns("NAME:metadata.name,API_VERSION:apiVersion"), [
    { header: "NAME", path: "{.metadata.name}" },
    { header: "API_VERSION", path: "{.apiVersion}" },
  ]);
  for (const path of ["metadata.name", ".metadata.name", "{metadata.name}", "{.metadata.name}"]) {
    t.same(parseCustomColumns(`NAME:${path}`), [{ header: "NAME", path: "{.metadata.name}" }], path);
  }
  t.same(parseCustomColumns("A:..image,B:"), [
    { header: "A", path: "{..image}" },
    { header: "B", path: "" },
  ]);
  t.same(parseCustomColumns("TIME:{.metadata.annotations.a:b}"), [
    { header: "TIME", path: "{.metadata.annotations.a:b}" },
  ]);
});

t.test("kubectl's errors", async (t) => {
  const cases: [string, string][] = [
    ["", "custom-columns format specified but no custom columns given"],
    ["invalid", "unexpected custom-columns spec: invalid, expected <header>:<json-path-expr>"],
    ["invalid=foobar", "unexpected custom-columns spec: invalid=foobar, expected <header>:<json-path-expr>"],
    ["invalid,foobar:blah", "unexpected custom-columns spec: invalid, expected <header>:<json-path-expr>"],
    // The spec is cut at every comma, a union's too.
    [
      "IMAGES:.spec.containers[0,1].image",
      "unexpected custom-columns spec: 1].image, expected <header>:<json-path-expr>",
    ],
    ...["{foo.bar", "foo.bar}", "{foo.bar}}", "{{foo.bar}", "{.a}{.b}"].map((path): [string, string] => [
      `A:${path}`,
      "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
    ]),
    // A path's parse error in the parser's bare words.
    ["A:.spec.containers[", "unterminated array"],
    ["A:.spec.containers[x]", "invalid array index x"],
    ["A:..*", "unrecognized character in action: U+002A '*'"],
  ];
  for (const [spec, message] of cases)
    t.equal(
      usageError(() => parseCustomColumns(spec)),
      message,
      spec,
    );
});

t.test("the examples: a header row, then a row per object", async (t) => {
  const cases: [string, string[][]][] = [
    [
      "CONTAINER:.spec.containers[0].name,IMAGE:.spec.containers[0].image",
      [
        ["CONTAINER", "IMAGE"],
        ["app", "registry.k8s.io/coredns:1.6.2"],
        ["postgres", "postgres:16"],
      ],
    ],
    [
      "NAME:.metadata.name,RSRC:.metadata.resourceVersion",
      [
        ["NAME", "RSRC"],
        ["web", "610995"],
        ["db", "<none>"],
      ],
    ],
    ["DATA:spec.containers[*].image", [["DATA"], ["registry.k8s.io/coredns:1.6.2,busybox"], ["postgres:16"]]],
    [
      "NAME:.metadata.name,IMAGE:.spec.containers[*].image",
      [
        ["NAME", "IMAGE"],
        ["web", "registry.k8s.io/coredns:1.6.2,busybox"],
        ["db", "postgres:16"],
      ],
    ],
    [
      'DATA:spec.containers[?(@.image!="registry.k8s.io/coredns:1.6.2")].image',
      [["DATA"], ["busybox"], ["postgres:16"]],
    ],
    // kubectl lists a map's values in Go's map order (random); here in the object's order.
    ["DATA:metadata.*", [["DATA"], ["web,default,610995,map[app:web tier:fe]"], ["db,default"]]],
  ];
  for (const [spec, want] of cases) t.same(rows(spec), want, spec);
});

t.test("cells: Go's %v of each value, <nil> for null, <none> for nothing", async (t) => {
  t.same(rows("LABELS:.metadata.labels,NODE:.spec.nodeName,NONE:.metadata.nope,EMPTY:"), [
    ["LABELS", "NODE", "NONE", "EMPTY"],
    ["map[app:web tier:fe]", "<nil>", "<none>", "<none>"],
    ["<none>", "node-1", "<none>", "<none>"],
  ]);
  t.same(customColumnRows(parseCustomColumns("C:.spec.containers[*]"), [PODS[1]]), [
    ["C"],
    ["map[image:postgres:16 name:postgres]"],
  ]);
  t.same(customColumnRows(parseCustomColumns("N:.n,L:.l"), [{ n: 1234567.5, l: [1, "a", true] }]), [
    ["N", "L"],
    ["1.2345675e+06", "[1 a true]"],
  ]);
  // ESC and CR shown, not acted on (kubectl's EscapeTerminal).
  t.same(customColumnRows(parseCustomColumns("V:.v"), [{ v: "\x1b[31mred\r" }]), [["V"], ["^[[31mred\\r"]]);
});

t.test("--no-headers, no objects, and formatTable's alignment", async (t) => {
  t.same(rows("NAME:.metadata.name", { noHeaders: true }), [["web"], ["db"]]);
  t.same(customColumnRows(parseCustomColumns("NAME:.metadata.name"), []), [["NAME"]]);
  t.same(formatTable(rows("NAME:.metadata.name,RSRC:.metadata.resourceVersion")), [
    "NAME   RSRC",
    "web    610995",
    "db     <none>",
  ]);
});

t.test("a path that fails on an object fails the rows, in kubectl's words", async (t) => {
  t.equal(
    usageError(() => rows("C:.spec.containers[1].name")),
    "array index out of bounds: index 1, length 1",
    "db has one container",
  );
  t.equal(
    usageError(() => rows("C:.metadata[0]")),
    "map[string]interface {} is not array or slice",
  );
});
