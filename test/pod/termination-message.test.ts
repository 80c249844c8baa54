// terminationMessagePath/Policy: the plan (mount, hash, label), the host file, and the message
// read back as the kubelet reads it (4096 bytes of the file; under FallbackToLogsOnError, the
// log's last 80 lines, 2048 bytes, for a failed container that left the file empty).
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import t from "tap";
import { defaultPod } from "../../lib/manifest/defaults.js";
import { buildContainerSpec } from "../../lib/pod/spec/container-spec.js";
import {
  describeTerminationMessage,
  planTerminationLog,
  readTerminationMessage,
  readTerminationMessagePolicy,
  terminationLogFile,
} from "../../lib/pod/termination-message.js";
import { withTerminationLog } from "../../lib/pod/volumes/termination-log.js";
import { buildCreateArgs } from "../../lib/runtime/create-args.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";

const identity = { name: "web", namespace: "ci", uid: "u-1" };
const specOf = (extra: Partial<Container>) => {
  const p: Pod = defaultPod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "ci" },
    spec: { containers: [{ name: "app", image: "busybox", command: ["sleep", "60"], ...extra }] },
  });
  return buildContainerSpec({
    pod: p,
    identity,
    container: p.spec!.containers[0]!,
    kind: "app",
    imageRef: "busybox:latest",
  });
};

t.test("the mount's target: the path, none when empty or taken by another mount", async (t) => {
  t.equal(planTerminationLog({}, []), "/dev/termination-log");
  t.equal(planTerminationLog({ terminationMessagePath: "/tmp/msg" }, ["/data"]), "/tmp/msg");
  t.equal(planTerminationLog({ terminationMessagePath: "" }, []), undefined);
  t.equal(
    planTerminationLog({ terminationMessagePath: "/data/msg" }, ["/data/msg/"]),
    undefined,
    "a volume mounted there wins",
  );
});

t.test("spec hash and labels: the defaults change nothing; another path or policy recreates", async (t) => {
  const plain = specOf({});
  // The value before podrun mounted the file (test/pod/spec/container-resources.test.ts pins it too).
  t.equal(plain.labels["io.podrun.spec-hash"], "a042be9b64446e87");
  t.equal(plain.labels["io.kubernetes.container.terminationMessagePolicy"], undefined);
  t.equal(plain.mounts, undefined, "the mount is added at create, after the hash");
  const path = specOf({ terminationMessagePath: "/tmp/msg" });
  const fallback = specOf({ terminationMessagePolicy: "FallbackToLogsOnError" });
  t.not(path.labels["io.podrun.spec-hash"], plain.labels["io.podrun.spec-hash"]);
  t.not(fallback.labels["io.podrun.spec-hash"], plain.labels["io.podrun.spec-hash"]);
  t.equal(fallback.labels["io.kubernetes.container.terminationMessagePolicy"], "FallbackToLogsOnError");
  t.equal(readTerminationMessagePolicy(fallback.labels), "FallbackToLogsOnError");
  t.equal(readTerminationMessagePolicy(plain.labels), "File");
});

t.test(
  "the host file: made empty and 0666 for each create; none (and no old one) when the path is taken",
  async (t) => {
    const podDir = await mkdtemp(join(tmpdir(), "podrun-tm-"));
    t.teardown(() => rm(podDir, { recursive: true, force: true }));
    const file = terminationLogFile(podDir, "app");
    const mounts = await withTerminationLog([], { name: "app" }, { podDir, touchDisk: true });
    t.same(mounts, [{ volume: "termination-log", target: "/dev/termination-log", readOnly: false, source: file }]);
    t.equal((await stat(file)).mode & 0o777, 0o666, "writable by any user in the container");
    await writeFile(file, "old run");
    await withTerminationLog([], { name: "app" }, { podDir, touchDisk: true });
    t.equal(await readFile(file, "utf8"), "", "a new container starts with an empty file");
    await writeFile(file, "old run");
    const taken = await withTerminationLog(
      [{ volume: "v", target: "/dev/termination-log", readOnly: false }],
      { name: "app" },
      { podDir, touchDisk: true },
    );
    t.equal(taken.length, 1, "no second mount at the volume's path");
    t.notOk(existsSync(file), "and no file left for ps to read");
    const dry = await withTerminationLog(
      [],
      { name: "other", terminationMessagePath: "/tmp/m" },
      { podDir, touchDisk: false },
    );
    t.same(
      dry.map((m) => m.target),
      ["/tmp/m"],
    );
    t.notOk(existsSync(terminationLogFile(podDir, "other")), "a dry run writes nothing");
    t.same(
      await withTerminationLog([], { name: "app" }, { touchDisk: true }),
      [],
      "no state directory: no file, no mount",
    );
  },
);

t.test(
  "reading: the file's last 4096 bytes; the log's last 80 lines (2048 bytes) under FallbackToLogsOnError",
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "podrun-tm-"));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, "termination-log");
    const tails: number[] = [];
    const logs = async (tail: number) => {
      tails.push(tail);
      return `${"x".repeat(3000)}\nlast line`;
    };
    await writeFile(file, "boom\n");
    t.same(await readTerminationMessage({ file, policy: "File", exitCode: 1, logs }), { text: "boom\n", from: "file" });
    t.same(
      await readTerminationMessage({ file, policy: "FallbackToLogsOnError", exitCode: 1, logs }),
      { text: "boom\n", from: "file" },
      "a written file wins",
    );
    await writeFile(file, `${"a".repeat(5000)}END`);
    const long = await readTerminationMessage({ file, policy: "File", exitCode: 0, logs });
    t.equal(long.text.length, 4096);
    t.ok(long.text.endsWith("END"), "the end of the file is kept");
    await writeFile(file, "");
    t.same(await readTerminationMessage({ file, policy: "File", exitCode: 1, logs }), { text: "", from: "file" });
    t.same(
      await readTerminationMessage({ file, policy: "FallbackToLogsOnError", exitCode: 0, logs }),
      { text: "", from: "file" },
      "no fallback for a success",
    );
    t.same(tails, []);
    const fromLogs = await readTerminationMessage({ file, policy: "FallbackToLogsOnError", exitCode: 2, logs });
    t.equal(fromLogs.from, "logs");
    t.equal(Buffer.byteLength(fromLogs.text), 2048);
    t.ok(fromLogs.text.endsWith("\nlast line"));
    t.same(tails, [80]);
    t.same(
      await readTerminationMessage({
        file: join(dir, "missing"),
        policy: "FallbackToLogsOnError",
        exitCode: 1,
        logs: async () => "tail",
      }),
      { text: "tail", from: "logs" },
      "no file: the logs",
    );
    t.same(await readTerminationMessage({ file: join(dir, "missing"), policy: "File", exitCode: 1, logs }), {
      text: "",
      from: "file",
    });
  },
);

t.test("up's error: one line on the error line, several under the details, none from the logs", async (t) => {
  const podDir = await mkdtemp(join(tmpdir(), "podrun-tm-"));
  t.teardown(() => rm(podDir, { recursive: true, force: true }));
  await withTerminationLog([], { name: "init" }, { podDir, touchDisk: true });
  const runtime = { logs: async () => "log line" };
  const file = terminationLogFile(podDir, "init");
  await writeFile(file, "database unreachable\n");
  t.same(
    await describeTerminationMessage(runtime, {
      podDir,
      container: { name: "init" },
      id: "c1",
      exitCode: 1,
      details: "tail",
    }),
    { line: ": database unreachable", details: "tail" },
  );
  await writeFile(file, "first\nsecond\n");
  t.same(await describeTerminationMessage(runtime, { podDir, container: { name: "init" }, id: "c1", exitCode: 1 }), {
    line: "",
    details: "termination message of container init:\n    first\n    second",
  });
  await writeFile(file, "");
  t.same(
    await describeTerminationMessage(runtime, {
      podDir,
      container: { name: "init", terminationMessagePolicy: "FallbackToLogsOnError" },
      id: "c1",
      exitCode: 1,
      details: "tail",
    }),
    { line: "", details: "tail" },
  );
});

t.test("create: the file as one more --mount, the same in every dialect (nerdctl: argv only)", async (t) => {
  const spec = specOf({ terminationMessagePath: "/tmp/msg" });
  spec.mounts = await withTerminationLog(
    [],
    { name: "app", terminationMessagePath: "/tmp/msg" },
    { podDir: "/state/pods/docker/ci_web", touchDisk: false },
  );
  for (const dialect of Object.values(DIALECTS)) {
    const args = buildCreateArgs(dialect, spec, { byName: [], childEnv: {} });
    const at = args.indexOf("--mount");
    t.equal(
      args[at + 1],
      "type=bind,source=/state/pods/docker/ci_web/containers/app/termination-log,target=/tmp/msg",
      dialect.name,
    );
  }
});
