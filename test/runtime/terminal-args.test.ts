// stdin and tty: `--interactive`/`--tty` on create in every dialect, and nothing at all (argv,
// spec hash, warnings) for a container that leaves them unset or false.
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultPod } from "../../lib/manifest/defaults.js";
import type { FieldError } from "../../lib/manifest/field-error.js";
import { findIgnoredFields } from "../../lib/kinds/support/support.js";
import { buildContainerSpec } from "../../lib/pod/spec/container-spec.js";
import { buildCreateArgs } from "../../lib/runtime/create-args.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";
import { planTerminal } from "../../lib/runtime/terminal-args.js";

const identity = { name: "web", namespace: "ci", uid: "u-1" };
const pod = (extra: Partial<Container>): Pod =>
  defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "ci" },
    spec: { containers: [{ name: "app", image: "busybox", command: ["sleep", "60"], ...extra }] },
  });
const specOf = (extra: Partial<Container>) => {
  const p = pod(extra);
  return buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.containers[0]!,
    kind: "app",
    imageRef: "busybox:latest",
  });
};
const NO_ENV = { byName: [], childEnv: {} };

t.test("planTerminal: only what is true", async (t) => {
  t.equal(planTerminal({}), undefined);
  t.equal(planTerminal({ stdin: false, tty: false }), undefined);
  t.same(planTerminal({ stdin: true }), { stdin: true });
  t.same(planTerminal({ tty: true, stdin: false }), { tty: true });
  t.same(planTerminal({ tty: true, stdin: true }), { stdin: true, tty: true });
});

t.test("create: --interactive and --tty before the image, the same in every dialect", async (t) => {
  for (const dialect of Object.values(DIALECTS)) {
    const args = buildCreateArgs(dialect, specOf({ stdin: true, tty: true, stdinOnce: true }), NO_ENV);
    const image = args.indexOf("busybox:latest");
    t.ok(args.indexOf("--interactive") > 0 && args.indexOf("--interactive") < image, `${dialect.name}: --interactive`);
    t.ok(args.indexOf("--tty") > 0 && args.indexOf("--tty") < image, `${dialect.name}: --tty`);
    t.same(
      buildCreateArgs(dialect, specOf({ tty: true }), NO_ENV).filter((a) => a === "--interactive" || a === "--tty"),
      ["--tty"],
      `${dialect.name}: tty alone`,
    );
    t.same(
      buildCreateArgs(dialect, specOf({ stdin: false, tty: false, stdinOnce: true }), NO_ENV),
      buildCreateArgs(dialect, specOf({}), NO_ENV),
      `${dialect.name}: false and unset give the same argv`,
    );
  }
});

t.test("the spec hash: unchanged without them (pinned), changed with each", async (t) => {
  const plain = specOf({}).labels["io.podrun.spec-hash"];
  // The value before podrun read stdin and tty (test/pod/spec/container-resources.test.ts pins it too).
  t.equal(plain, "a042be9b64446e87");
  t.equal(specOf({ stdin: false, tty: false, stdinOnce: false }).labels["io.podrun.spec-hash"], plain);
  t.equal(specOf({ stdinOnce: true }).labels["io.podrun.spec-hash"], plain, "stdinOnce changes nothing podrun does");
  const tty = specOf({ tty: true }).labels["io.podrun.spec-hash"];
  const stdin = specOf({ stdin: true }).labels["io.podrun.spec-hash"];
  t.not(tty, plain);
  t.not(stdin, plain);
  t.not(tty, stdin);
});

t.test("no warning for stdin, stdinOnce and tty", async (t) => {
  const found: FieldError[] = [];
  findIgnoredFields(
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: {
        containers: [{ name: "a", image: "x", stdin: true, stdinOnce: true, tty: true }],
        initContainers: [{ name: "i", image: "x", tty: true }],
      },
    },
    (w) => found.push(w),
  );
  t.same(found, []);
});
