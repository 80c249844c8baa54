import t from "tap";
import { UsageError } from "../../lib/errors.js";
import { formatLabelSelector, matchesLabelSelector, parseLabelSelector } from "../../lib/manifest/label-selector.js";
import { matchesFieldSelector, parseFieldSelector } from "../../lib/manifest/field-selector.js";

// The cases of the Kubernetes "Labels and Selectors" page (its kubectl examples) and of
// apimachinery's own selector tests, as tables: the text, how it prints back, and what it selects.

const prod = { environment: "production", tier: "frontend" };
const qa = { environment: "qa", tier: "backend", partition: "customerA" };
const bare = { app: "web" };

const valid: Array<[selector: string, printed: string, matches: Array<Record<string, string>>]> = [
  ["", "", [prod, qa, bare]],
  ["environment = production", "environment=production", [prod]],
  ["environment==production", "environment==production", [prod]],
  ["tier != frontend", "tier!=frontend", [qa, bare]],
  ["environment=production,tier!=frontend", "environment=production,tier!=frontend", []],
  ["environment=production,tier=frontend", "environment=production,tier=frontend", [prod]],
  ["environment in (production, qa)", "environment in (production,qa)", [prod, qa]],
  ["tier notin (frontend, backend)", "tier notin (backend,frontend)", [bare]],
  ["partition", "partition", [qa]],
  ["!partition", "!partition", [prod, bare]],
  ["environment in (production),tier in (frontend)", "environment in (production),tier in (frontend)", [prod]],
  ["environment,environment notin (frontend)", "environment,environment notin (frontend)", [prod, qa]],
  ["x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()", []],
  ["app=", "app=", []],
  ["app= ,tier", "app=,tier", []],
  ["in in (in, notin)", "in in (in,notin)", []],
  ["example.com/role=db", "example.com/role=db", []],
];

t.test("valid selectors: printed back in key order, and what they select", async (t) => {
  for (const [text, printed, matches] of valid) {
    const selector = parseLabelSelector(text);
    t.equal(formatLabelSelector(selector), printed, `${JSON.stringify(text)} prints back`);
    t.same(
      [prod, qa, bare].filter((labels) => matchesLabelSelector(selector, labels)),
      matches,
      `${JSON.stringify(text)} selects`,
    );
  }
});

t.test("the integer comparisons", async (t) => {
  const cases: Array<[string, Record<string, string>, boolean]> = [
    ["replicas>1", { replicas: "2" }, true],
    ["replicas>1", { replicas: "1" }, false],
    ["replicas<7", { replicas: "-3" }, true],
    ["replicas<7", { replicas: "seven" }, false],
    ["replicas<7", {}, false],
    ["big>9007199254740993", { big: "9007199254740994" }, true],
  ];
  for (const [text, labels, expected] of cases)
    t.equal(matchesLabelSelector(parseLabelSelector(text), labels), expected, `${text} on ${JSON.stringify(labels)}`);
});

const invalid: Array<[selector: string, reason: RegExp]> = [
  ["x=a||y=b", /invalid label value "a\|\|y" at key "x"/],
  ["x==a==b", /found '==', expected: ',' or 'end of string'/],
  ["a=b=c", /found '=', expected: ',' or 'end of string'/],
  ["!x=a", /found '=', expected: ',' or 'end of string'/],
  ["x=a,", /found '', expected: identifier after ','/],
  [",x=a", /found ',', expected: !, identifier, or 'end of string'/],
  ["x in a", /found 'a', expected: '\('/],
  ["x in (a b)", /found 'b', expected: ',' or '\)'/],
  ["x in (a", /found '', expected: ',' or '\)'/],
  ["x>1.1", /the value must be an integer/],
  ["x<a", /the value must be an integer/],
  ["x=(a)", /found '\(', expected: identifier/],
  ["-x=a", /invalid label key "-x"/],
  ["x=-a", /invalid label value "-a" at key "x"/],
  ["x notin b", /found 'b', expected: '\('/],
  ["x y", /found 'y', expected: '=', '!=', '==', 'in', notin'/],
];

t.test("invalid selectors: a usage error (exit 2) with apimachinery's reason", async (t) => {
  for (const [text, reason] of invalid) {
    const error = t.throws(() => parseLabelSelector(text), `${text} is refused`) as Error;
    t.ok(error instanceof UsageError, `${text}: a usage error`);
    t.match(error.message, `unable to parse label selector "${text}": `, `${text}: names the selector`);
    t.match(error.message, reason, `${text}: ${reason}`);
  }
});

t.test("field selectors: metadata.name and status.phase, = == !=, escapes", async (t) => {
  const supported = ["metadata.name", "metadata.namespace", "status.phase"];
  const pods = [
    { "metadata.name": "web", "status.phase": "Running" },
    { "metadata.name": "db,1", "status.phase": "Pending" },
    { "metadata.name": "job", "status.phase": "Succeeded" },
  ];
  const cases: Array<[string, string[]]> = [
    ["", ["web", "db,1", "job"]],
    ["status.phase=Running", ["web"]],
    ["status.phase==Running", ["web"]],
    ["status.phase!=Running", ["db,1", "job"]],
    ["status.phase!=Running,status.phase!=Succeeded", ["db,1"]],
    ["metadata.name=db\\,1", ["db,1"]],
    ["metadata.name=web,status.phase=Pending", []],
  ];
  for (const [text, names] of cases) {
    const selector = parseFieldSelector(text, supported);
    t.same(
      pods.filter((fields) => matchesFieldSelector(selector, fields)).map((fields) => fields["metadata.name"]),
      names,
      text,
    );
  }
  t.throws(() => parseFieldSelector("spec.nodeName=a", supported), /field label not supported: spec\.nodeName/);
  t.throws(() => parseFieldSelector("status.phase", supported), /can't understand 'status\.phase'/);
  t.throws(() => parseFieldSelector("metadata.name=a\\b", supported), /invalid escape sequence/);
});
