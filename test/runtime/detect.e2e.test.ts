import t from "tap";
import { detectRuntime } from "../../lib/runtime/detect.js";
import { runCommand } from "../../lib/runtime/exec.js";
import { missing } from "../harness/engine.js";

// detectRuntime against the real engines; with fake engine binaries on PATH: detect.test.ts.

// End to end, against the engines scripts/test-env.sh brings up. The engine check is a raw
// command, not the harness's requireEngine (which itself relies on detectRuntime).
for (const name of ["docker", "podman"] as const) {
  t.test(`smoke: detectRuntime({preferred: "${name}"}) finds the running ${name} engine`, async (t) => {
    const expected = await runCommand(name, ["version", "--format", "{{.Server.Version}}"], { reject: false }).catch(
      (e: unknown) => e as Error,
    );
    if (expected instanceof Error || expected.exitCode !== 0 || !expected.stdout.trim()) {
      const why = expected instanceof Error ? expected.message : expected.stderr.trim() || `exit ${expected.exitCode}`;
      return missing(t, `${name} engine (${why})`);
    }
    const detected = await detectRuntime({ preferred: name });
    t.equal(detected.name, name);
    t.equal(detected.binary, name);
    t.equal(detected.serverVersion, expected.stdout.trim());
    const client = await runCommand(name, ["version", "--format", "{{.Client.Version}}"]);
    t.equal(detected.clientVersion, client.stdout.trim());
  });
}
