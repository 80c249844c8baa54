import t from "tap";
import { UsageError } from "../../lib/errors.js";
import {
  formatGoValue,
  formatJsonPathValue,
  JsonPathError,
  parseJsonPathTemplate,
  relaxedJsonPathTemplate,
  renderJsonPath,
  selectJsonPath,
} from "../../lib/output/jsonpath/index.js";

// kubectl's `-o jsonpath`. Every expected output below was checked against kubectl v1.32 (`kubectl
// label --local -f FILE -o jsonpath=…`, as jsonpath-kubectl.test.ts does for a part of them).

/** What fn throws, to compare a message whole (t.throws matches a part of it). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The message and kubectl's own words of the JsonPathError fn throws. */
function failure(fn: () => unknown): { message: string; reason: string } | undefined {
  const error = thrown(fn);
  return error instanceof JsonPathError ? { message: error.message, reason: error.reason } : undefined;
}

const render = (template: string, data: unknown, options?: { allowMissingKeys?: boolean; asJson?: boolean }) =>
  renderJsonPath(parseJsonPathTemplate(template), data, options);

// The sample List of kubectl's documented JSONPath examples.
const SAMPLE = {
  kind: "List",
  items: [
    {
      kind: "None",
      metadata: { name: "127.0.0.1", labels: { "kubernetes.io/hostname": "127.0.0.1" } },
      status: { capacity: { cpu: "4" }, addresses: [{ type: "LegacyHostIP", address: "127.0.0.1" }] },
    },
    {
      kind: "None",
      metadata: { name: "127.0.0.2" },
      status: {
        capacity: { cpu: "8" },
        addresses: [
          { type: "LegacyHostIP", address: "127.0.0.2" },
          { type: "another", address: "127.0.0.3" },
        ],
      },
    },
  ],
  users: [
    { name: "myself", user: {} },
    { name: "e2e", user: { username: "admin", password: "secret" } },
  ],
};

t.test("kubectl's documented examples (maps now print as JSON)", async (t) => {
  const cases: [string, string][] = [
    ["kind is {.kind}", "kind is List"],
    ["{['kind']}", "List"],
    ["{..name}", "127.0.0.1 127.0.0.2 myself e2e"],
    ["{.items[*].metadata.name}", "127.0.0.1 127.0.0.2"],
    ["{.users[0].name}", "myself"],
    ["{.items[*]['metadata.name', 'status.capacity']}", '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'],
    ['{.users[?(@.name=="e2e")].user.password}', "secret"],
    [
      "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
      '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] ',
    ],
    ["{range .items[*]}{.metadata.name}{'\\t'}{end}", "127.0.0.1\t127.0.0.2\t"],
    ["{.items[0].metadata.labels.kubernetes\\.io/hostname}", "127.0.0.1"],
    ["{.items[-1:].metadata.name}", "127.0.0.2"],
    [
      "{.items[0]}",
      '{"kind":"None","metadata":{"labels":{"kubernetes.io/hostname":"127.0.0.1"},"name":"127.0.0.1"},' +
        '"status":{"addresses":[{"address":"127.0.0.1","type":"LegacyHostIP"}],"capacity":{"cpu":"4"}}}',
    ],
  ];
  for (const [template, want] of cases) t.equal(render(template, SAMPLE), want, template);
  t.equal(render("{@}", SAMPLE), render("{}", SAMPLE), "{@} is the input");
  t.same(JSON.parse(render("{@}", SAMPLE)), SAMPLE);
});

const POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name: "web",
    namespace: "default",
    labels: { "app.kubernetes.io/name": "web", tier: "fe" },
    annotations: { note: "a <b> & c" },
  },
  spec: {
    terminationGracePeriodSeconds: 30,
    nodeName: null,
    podrunTest: { ratio: 1234567.5, small: 0.00001, flag: true },
    containers: [
      {
        name: "app",
        image: "nginx:1.27",
        args: ["--port", "8080"],
        ports: [
          { name: "http", containerPort: 80 },
          { name: "https", containerPort: 443 },
        ],
        resources: { limits: { cpu: "500m" } },
      },
      { name: "sidecar", image: "busybox", ports: [] },
    ],
  },
  status: {
    phase: "Running",
    conditions: [
      { type: "Ready", status: "True" },
      { type: "PodScheduled", status: "True" },
    ],
  },
};

t.test("paths: fields, escapes, indexes, slices, unions, wildcards, recursion", async (t) => {
  const cases: [string, string][] = [
    ["{.metadata.name}", "web"],
    ["{$.metadata.name} {@.metadata.name}", "web web"],
    ["{ .metadata.name }", "web"],
    ["name={.metadata.name} ns={.metadata.namespace}", "name=web ns=default"],
    ["{.spec.containers[*].name}", "app sidecar"],
    ["{.spec.containers[0].image}", "nginx:1.27"],
    ["{.spec.containers[-1].name}", "sidecar"],
    ["{.spec.containers[-1:].name}", "sidecar"],
    ["{.spec.containers[0].ports[0:2].name}", "http https"],
    ["{.spec.containers[0].ports[1:].containerPort}", "443"],
    ["{.spec.containers[0].ports[::2].name}", "http"],
    ["{.spec.containers[0:0].name}", ""],
    ["{.spec.containers[0,1].image}", "nginx:1.27 busybox"],
    ["{.metadata.labels.app\\.kubernetes\\.io/name}", "web"],
    ["{.metadata.labels['app\\.kubernetes\\.io/name']}", "web"],
    ["{.metadata.labels.tier}", "fe"],
    ["{.spec..name}", "app http https sidecar"],
    ["{.spec.containers[0].resources.limits.*}", "500m"],
    ["{.spec.containers[0].args[*]}", "--port 8080"],
    ["{.status.conditions[*].type}{'\\n'}{.status.phase}", "Ready PodScheduled\nRunning"],
  ];
  for (const [template, want] of cases) t.equal(render(template, POD), want, template);
});

t.test("filters", async (t) => {
  const cases: [string, string][] = [
    ['{.status.conditions[?(@.type=="Ready")].status}', "True"],
    ['{.status.conditions[?(@.type!="Ready")].type}', "PodScheduled"],
    ['{.status.conditions[?(@.status=="True")].type}', "Ready PodScheduled"],
    ["{.spec.containers[0].ports[?(@.containerPort<100)].name}", "http"],
    ["{.spec.containers[0].ports[?(@.containerPort>=443)].name}", "https"],
    ["{.spec.containers[0].ports[?(@.containerPort > 80)].name}", "https"],
    ["{.spec.containers[*].ports[?(@.containerPort==443)].name}", "https"],
    ["{.spec.containers[?(@.args)].name}", "app"],
    ["{.spec.containers[0].ports[?(@.name)].containerPort}", "80 443"],
    ["{.spec.containers[?(@.name=='sidecar')].image}", "busybox"],
    ["{.spec.containers[?(@.image==\"busybox\")]['name','image']}", "sidecar busybox"],
    ["{.spec.containers[?(@.name==@.image)].name}", ""],
    ['{range .status.conditions[?(@.type=="Ready")]}{.status}{end}', "True"],
  ];
  for (const [template, want] of cases) t.equal(render(template, POD), want, template);
});

t.test("range and end, quoted literals", async (t) => {
  const cases: [string, string][] = [
    ['{range .spec.containers[*]}{.name}{"\\t"}{.image}{"\\n"}{end}', "app\tnginx:1.27\nsidecar\tbusybox\n"],
    ['{range .spec.containers[*]}{.name}:{range .ports[*]}{" "}{.containerPort}{end};{end}', "app: 80 443;sidecar:;"],
    ['{range .status.conditions[*]}{@.type}={@.status}{"\\n"}{end}', "Ready=True\nPodScheduled=True\n"],
    ["{range}{.metadata.name}{end}", "web"],
    // No {end}: the nodes after the range run for each item, then once more over the object.
    ["{range .spec.containers[*]}{.name}", "appsidecar"],
    ['{.metadata.name}{" "}{.metadata.namespace}{"\\n"}', "web default\n"],
    ['{\'it\\\'s\'} {"say \\"hi\\""} {\'a "b"\'}', 'it\'s say "hi" a "b"'],
    ['{"\\u00e9\\x41\\101"}', "éAA"],
    ["{.metadata.name} {1} {-2} {1.50} {true}", "web 1 -2 1.5 true"],
  ];
  for (const [template, want] of cases) t.equal(render(template, POD), want, template);
});

t.test("printing: strings raw, numbers and booleans as Go prints them, maps and lists as Go's JSON", async (t) => {
  const cases: [string, string][] = [
    ["{.spec.terminationGracePeriodSeconds}", "30"],
    ["{.spec.podrunTest.ratio} {.spec.podrunTest.small} {.spec.podrunTest.flag}", "1.2345675e+06 1e-05 true"],
    ["{.spec.nodeName}", "null"],
    ["{.metadata.annotations}", '{"note":"a \\u003cb\\u003e \\u0026 c"}'],
    ["{.spec.containers[1]}", '{"image":"busybox","name":"sidecar","ports":[]}'],
    ["{.spec.containers[0].args}", '["--port","8080"]'],
    ["{.spec.containers[1].ports}", "[]"],
  ];
  for (const [template, want] of cases) t.equal(render(template, POD), want, template);
  t.equal(formatJsonPathValue({ b: 1, a: [true, null, 0.5], "1": "x" }), '{"1":"x","a":[true,null,0.5],"b":1}');
  t.equal(formatJsonPathValue(100000.5), "100000.5");
  t.equal(formatJsonPathValue(-0.00012), "-0.00012");
  t.equal(formatJsonPathValue(1e21), "1e+21", "too big for an int64: a float64");
  t.equal(formatJsonPathValue("\u2028"), "\u2028", "a string prints raw");
  t.equal(formatJsonPathValue(["\u2028"]), '["\\u2028"]', "Go's JSON escapes the line separators");
});

t.test("-o jsonpath-as-json: each piece's values as an indented JSON list", async (t) => {
  t.equal(
    render("{.metadata.name}{.spec.containers[*].name}{.nope}", POD, { asJson: true }),
    '[\n    "web"\n]\n[\n    "app",\n    "sidecar"\n]\n[]\n',
  );
  t.equal(
    render('{"x"}{.spec.containers[1]}', POD, { asJson: true }),
    '[\n    "x"\n]\n[\n    {\n        "image": "busybox",\n        "name": "sidecar",\n        "ports": []\n    }\n]\n',
  );
});

// What kubectl does that a general JSONPath (jsonpath-plus was tried) does not.
t.test("kubectl's ways, where a general JSONPath would answer otherwise", async (t) => {
  const THING = {
    lists: [[], [1, 2]],
    checks: [
      { ok: true, num: 1 },
      { ok: false, num: 2.5 },
    ],
    odd: { "a]b": 1, length: 2, "*": 3, "0": 4, "a;b": 5 },
    arr: [10, 20, 30],
  };
  const cases: [string, string, unknown][] = [
    // A dict key is read as a path: the dots split it (escape them to keep them).
    ["{.metadata.labels['app.kubernetes.io/name']}", "", POD],
    // A field reads maps only: a list's length or items, a string's length are no fields.
    ["{.spec.containers[0].ports.length} {.spec.containers.0} {.metadata.name.length}", "  ", POD],
    ["{.odd.length} {.odd.0}", "2 4", THING],
    ["{..length}", "2", THING],
    // Keys a general JSONPath syntax cannot carry.
    ["{.odd.a\\]b} {.odd.\\*} {.odd.a;b}", "1 3 5", THING],
    // A string's children are its bytes.
    ["{.metadata.name.*}", "119 101 98", POD],
    // A union takes each member over all the values, member after member.
    ["{.spec.containers[0].ports[*]['name','containerPort']}", "http https 80 443", POD],
    ["{.arr[0,-1]} {.arr[-2]} {.arr[0:3:2]}", "10 30 20 10 30", THING],
    // A slice that selects nothing of one list ends the step: later lists are not read.
    ["{.lists[*][*]}", "", THING],
    ["{.lists[1][*]}", "1 2", THING],
    // An existence test keeps the item when its path fails on a step that had values.
    ["{.spec.containers[?(@.ports[0])].name}", "app sidecar", POD],
    // `..` alone lists every value that has children, each before them.
    ["{.arr..}", "[10,20,30]", THING],
    ["{.checks[?(@.ok==false)].num} {.checks[?(@.ok!=true)].num}", "2.5 2.5", THING],
    // Empty field, empty brackets: a field named "" and [0].
    ["{.}|{.spec.containers[].name}", "|app", POD],
  ];
  for (const [template, want, data] of cases) t.equal(render(template, data), want, template);
});

t.test("missing keys print nothing, or fail when not allowed", async (t) => {
  t.equal(render("{.metadata.nope}|{.spec.containers[*].nope}|{..nope}", POD), "||");
  const failures: [string, string][] = [
    ["{.metadata.nope}", "nope is not found"],
    ["{.spec.containers[*].nope}", "nope is not found"],
    ["{..nope}", "nope is not found"],
    ["{.spec.nodeName.x}", "x is not found"],
    ["{.metadata.labels['app.kubernetes.io/name']}", "app is not found"],
    ['{.spec.containers[?(@.nope=="x")].name}', "nope is not found"],
    // A range over nothing still runs its body once, over no value.
    ["{range .spec.containers[1].ports[*]}{.name}{end}", "name is not found"],
  ];
  for (const [template, reason] of failures) {
    const message = `error executing jsonpath "${template.replaceAll('"', '\\"')}": ${reason}`;
    t.same(
      failure(() => render(template, POD, { allowMissingKeys: false })),
      { message, reason },
      template,
    );
  }
  t.equal(render("{.spec.containers[*].args[0]}", POD, { allowMissingKeys: false }), "--port", "one of the two has it");
  t.equal(render("{.spec.containers[?(@.nope)].name}", POD, { allowMissingKeys: false }), "", "an existence test");
});

t.test("templates kubectl will not parse", async (t) => {
  const cases: [string, string][] = [
    ["{.metadata.name", "unclosed action"],
    ["{.a[}", "unterminated array"],
    ["{.a['x','y}", "unterminated array"],
    ["{.a[x]}", "invalid array index x"],
    ["{.a[1:2:3:4]}", "invalid array index 1:2:3:4"],
    ["{.a[-]}", "array index - is not a number"],
    ["{.odd['a]b']}", "invalid array index 'a"],
    ['{"abc}', "unterminated quoted string"],
    ['{"\\\\"}', "unterminated quoted string"],
    ['{"\\q"}', 'unquote string "\\q" error invalid syntax'],
    ["{....name}", "invalid multiple recursive descent"],
    ["{..*}", "unrecognized character in action: U+002A '*'"],
    ["{.a\t}", "unrecognized character in action: U+0009"],
    ['{.a[?(@.b=="x"}', "unterminated filter"],
    ["{.a[?(@.b)x]}", "unclosed array expect ]"],
    ["{.items[?(@.metadata.name=~/^test$/)].metadata.name}", "unrecognized character in action: U+007E '~'"],
    ["{-}", "cannot parse number -"],
    ["{1.2.3}", "cannot parse number 1.2.3"],
  ];
  for (const [template, reason] of cases) {
    const message = `error parsing jsonpath ${template}, ${reason}`;
    t.same(
      failure(() => parseJsonPathTemplate(template)),
      { message, reason },
      template,
    );
  }
  t.ok(new JsonPathError("m", "r") instanceof UsageError, "a usage error: exit 2");
});

t.test("templates that fail on the object", async (t) => {
  const cases: [string, string][] = [
    ["{.spec.containers[5].name}", "array index out of bounds: index 5, length 2"],
    ["{.spec.containers[1:3]}", "array index out of bounds: index 2, length 2"],
    ["{.spec.containers[-3]}", "array index out of bounds: index -1, length 2"],
    ["{.spec.containers[*].ports[0].name}", "array index out of bounds: index 0, length 0"],
    ["{.spec.containers[0:2:0]}", "step must be > 0"],
    ["{.metadata[0]}", "map[string]interface {} is not array or slice"],
    ["{.metadata.labels[*]}", "map[string]interface {} is not array or slice"],
    ["{.metadata.name[0]}", "string is not array or slice"],
    ["{[0]}", "map[string]interface {} is not array or slice"],
    [
      "{.metadata[?(@.x)]}",
      "map[annotations:map[note:a <b> & c] labels:map[app.kubernetes.io/name:web tier:fe] name:web namespace:default] is not array or slice and cannot be filtered",
    ],
    ["{.spec.nodeName[?(@.x)]}", "<nil> is not array or slice and cannot be filtered"],
    // Go's template comparison: an int never compares with a float or a string, nor a list with anything.
    ['{.spec.containers[0].ports[?(@.containerPort=="80")].name}', "incompatible types for comparison"],
    ["{.spec.containers[0].ports[?(@.containerPort>80.0)].name}", "incompatible types for comparison"],
    ['{.spec.containers[?(@.ports=="x")].name}', "invalid type for comparison"],
    [
      "{.spec.podrunTest[?(@.flag<true)]}",
      "map[flag:true ratio:1.2345675e+06 small:1e-05] is not array or slice and cannot be filtered",
    ],
    ["{.spec.containers[?(@.ports[*].containerPort==80)].name}", "can only compare one element at a time"],
    ['{.status.conditions[?(@.type="Ready")]}', "unrecognized filter operator ="],
    ["{end}", "not in range, nothing to end"],
    ["{foo}", "unrecognized identifier foo"],
    ["{null}", "unrecognized identifier null"],
  ];
  for (const [template, reason] of cases) {
    const message = `error executing jsonpath "${template.replaceAll('"', '\\"')}": ${reason}`;
    t.same(
      failure(() => render(template, POD)),
      { message, reason },
      template,
    );
  }
  const checks = {
    checks: [
      { ok: true, num: 1 },
      { ok: false, num: 2.5 },
    ],
  };
  t.equal(failure(() => render("{.checks[?(@.ok<true)].num}", checks))?.reason, "invalid type for comparison");
  t.equal(failure(() => render("{.checks[?(@.num>1)].num}", checks))?.reason, "incompatible types for comparison");
  t.equal(failure(() => render("{.checks[?(@.num<3.0)].num}", checks))?.reason, "incompatible types for comparison");
});

t.test("a template is never run as JavaScript", async (t) => {
  const data = { items: [{ a: 1 }] };
  t.equal(render("{.items[?(@.constructor)].a}", data), "");
  t.equal(failure(() => render("{.items[?(process.exit==1)].a}", data))?.reason, "unrecognized identifier process");
  // An existence test keeps the item when its path fails on a step that had values (kubectl's way).
  t.equal(render("{.items[?(process.exit)].a}", data), "1");
  t.equal(render("{.items[?(@.a==1)].a}{.__proto__}{.constructor}", data), "1");
});

t.test("selectJsonPath: one path, with or without braces, missing keys allowed", async (t) => {
  t.same(selectJsonPath(".spec.containers[*].name", POD), ["app", "sidecar"]);
  t.same(selectJsonPath("spec.containers[*].name", POD), ["app", "sidecar"]);
  t.same(selectJsonPath("{.spec.containers[0].ports[*].containerPort}", POD), [80, 443]);
  t.same(selectJsonPath("{spec.nodeName}", POD), [null]);
  t.same(selectJsonPath(".metadata.nope", POD), []);
  t.same(selectJsonPath("", POD), []);
  t.same(selectJsonPath("..name", SAMPLE), ["127.0.0.1", "127.0.0.2", "myself", "e2e"]);
  // Custom columns print kubectl's bare words.
  const bare = (reason: string) => ({ message: reason, reason });
  t.same(
    failure(() => selectJsonPath(".spec.containers[5]", POD)),
    bare("array index out of bounds: index 5, length 2"),
  );
  t.same(
    failure(() => selectJsonPath(".a[", POD)),
    bare("unterminated array"),
  );
  const error = thrown(() => selectJsonPath("{.a}{.b}", POD));
  t.ok(error instanceof UsageError);
  t.equal(
    (error as Error).message,
    "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'",
  );
});

t.test("relaxedJsonPathTemplate: kubectl's four spellings of one path", async (t) => {
  for (const path of ["metadata.name", ".metadata.name", "{metadata.name}", "{.metadata.name}"]) {
    t.equal(relaxedJsonPathTemplate(path), "{.metadata.name}", path);
  }
  t.equal(relaxedJsonPathTemplate("..name"), "{..name}");
  t.equal(relaxedJsonPathTemplate(""), "");
});

t.test("formatGoValue: Go's %v, as custom columns print a value", async (t) => {
  t.equal(formatGoValue({ tier: "fe", "app.kubernetes.io/name": "web" }), "map[app.kubernetes.io/name:web tier:fe]");
  t.equal(formatGoValue(["--port", 8080, null, { a: [] }]), "[--port 8080 <nil> map[a:[]]]");
  t.equal(formatGoValue({ ratio: 1234567.5, flag: true }), "map[flag:true ratio:1.2345675e+06]");
  t.equal(formatGoValue("x"), "x");
});
