import t from "tap";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EngineError } from "../../lib/errors.js";
import {
  checkEngineVersion,
  detectRuntime,
  MINIMUM_VERSIONS,
  parseVersionOutput,
  type RuntimeName,
} from "../../lib/runtime/detect.js";

// The engine's version against the oldest podrun supports (detect.ts MINIMUM_VERSIONS): pure on
// version outputs (captured, or written by hand: fixtures/runtime/README.md), then detectRuntime
// on binaries that print them.

const FIXTURES = fileURLToPath(new URL("../fixtures/runtime/", import.meta.url));
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

t.test("the client version of each output, against the minimum", async (t) => {
  const cases: [RuntimeName, string, string | undefined][] = [
    ["docker", "docker-28.2-client-20.10-server.json", undefined],
    ["docker", "docker-20.10.json", undefined],
    ["podman", "podman-4.3-local.json", undefined],
    ["podman", "podman-4.3-remote.json", undefined],
    ["podman", "podman-4.2-local.json", "podman 4.2.0 is older than podrun supports: podman 4.3 or later is needed"],
    ["nerdctl", "nerdctl-2.0.json", undefined],
    ["nerdctl", "nerdctl-1.0.json", "nerdctl v1.0.0 is older than podrun supports: nerdctl 2.0 or later is needed"],
  ];
  for (const [name, file, want] of cases) {
    const { client } = parseVersionOutput(name, fixture(file));
    t.equal(checkEngineVersion(name, client ?? ""), want, `${name}: ${file}`);
  }
});

t.test("versions are compared number by number, whatever follows them", async (t) => {
  const cases: [RuntimeName, string, boolean][] = [
    ["docker", "20.10.0", true],
    ["docker", "20.10.24+dfsg1", true],
    ["docker", "19.03.15", false],
    ["docker", "20.9.1", false],
    ["docker", "20", false],
    ["docker", "28.2.2", true],
    ["podman", "4.3.0", true],
    ["podman", "4.10.0", true],
    ["podman", "5.0.0-dev", true],
    ["podman", "3.4.4", false],
    ["nerdctl", "v2.0.0-rc.1", true],
    ["nerdctl", "v1.7.7", false],
    // A development build prints no number: podrun does not refuse what it cannot read.
    ["docker", "dev", true],
    ["podman", "", true],
  ];
  for (const [name, version, supported] of cases) {
    t.equal(checkEngineVersion(name, version) === undefined, supported, `${name} ${JSON.stringify(version)}`);
  }
  t.same(MINIMUM_VERSIONS, { docker: "20.10", podman: "4.3", nerdctl: "2.0" });
});

function fakeEngines(dir: string, outputs: Partial<Record<RuntimeName, string>>): NodeJS.ProcessEnv {
  for (const [name, file] of Object.entries(outputs)) {
    writeFileSync(join(dir, name), `#!/bin/sh\nexec /bin/cat '${join(FIXTURES, file)}'\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return { PATH: dir };
}

t.test("the one engine asked for, too old: one line naming the version found and the minimum", async (t) => {
  const env = fakeEngines(t.testdir({}), { nerdctl: "nerdctl-1.0.json", docker: "docker-20.10.json" });
  const error = await detectRuntime({ preferred: "nerdctl", env }).catch((e: unknown) => e);
  t.type(error, EngineError);
  t.match(error, {
    kind: "unavailable",
    message: "nerdctl v1.0.0 is older than podrun supports: nerdctl 2.0 or later is needed",
  });
  t.equal((error as EngineError).reason, undefined, "no RuntimeUnavailable: the engine did answer");
  const fromEnv = await detectRuntime({ env: { ...env, PODRUN_RUNTIME: "nerdctl" } }).catch((e: unknown) => e);
  t.match(fromEnv, { kind: "unavailable", message: /^nerdctl v1\.0\.0 is older than podrun supports/ });
});

t.test("detecting: an engine too old is passed over for the next, and named when none will do", async (t) => {
  const env = fakeEngines(t.testdir({}), { podman: "podman-4.2-local.json", nerdctl: "nerdctl-2.0.json" });
  t.equal((await detectRuntime({ env })).name, "nerdctl", "podman 4.2 passed over");
  const old = fakeEngines(t.testdir({}), { podman: "podman-4.2-local.json", nerdctl: "nerdctl-1.0.json" });
  const error = (await detectRuntime({ env: old }).catch((e: unknown) => e)) as Error;
  t.equal(
    error.message,
    "no container engine answered: docker: not installed; " +
      "podman: podman 4.2.0 is older than podrun supports: podman 4.3 or later is needed; " +
      "nerdctl: nerdctl v1.0.0 is older than podrun supports: nerdctl 2.0 or later is needed",
  );
});
