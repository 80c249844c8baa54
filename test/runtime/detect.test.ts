import t from "tap";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PodrunError, UsageError } from "../../lib/errors.js";
import { detectRuntime, engineFailure, parseVersionOutput, type RuntimeName } from "../../lib/runtime/detect.js";

// Captured from the real binaries, except the nerdctl ones: nerdctl is not packaged for Debian 12,
// so those are written by hand after nerdctl's dockercompat VersionInfo (see fixtures/runtime/README.md).
const FIXTURES = fileURLToPath(new URL("../fixtures/runtime/", import.meta.url));
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

t.test("parseVersionOutput reads client and engine versions of each runtime", async (t) => {
  const cases: [RuntimeName, string, { client?: string; server?: string }][] = [
    ["docker", "docker-28.2-client-20.10-server.json", { client: "28.2.2", server: "20.10.24+dfsg1" }],
    ["docker", "docker-20.10.json", { client: "20.10.24+dfsg1", server: "20.10.24+dfsg1" }],
    ["docker", "docker-daemon-down.json", { client: "28.2.2", server: undefined }],
    ["podman", "podman-4.3-local.json", { client: "4.3.1", server: "4.3.1" }],
    ["podman", "podman-4.3-remote.json", { client: "4.3.1", server: "4.3.1" }],
    ["nerdctl", "nerdctl-2.0.json", { client: "v2.0.3", server: "v2.0.2" }],
    ["nerdctl", "nerdctl-containerd-down.json", { client: "v2.0.3", server: undefined }],
  ];
  for (const [name, file, want] of cases) {
    t.same(parseVersionOutput(name, fixture(file)), want, `${name}: ${file}`);
  }
});

t.test("parseVersionOutput tolerates noise and garbage", async (t) => {
  t.same(parseVersionOutput("docker", ""), {});
  t.same(parseVersionOutput("docker", "not json"), {});
  t.same(parseVersionOutput("docker", "[1,2]"), {});
  t.same(parseVersionOutput("podman", `WARN something\n${fixture("podman-4.3-local.json")}`), {
    client: "4.3.1",
    server: "4.3.1",
  });
  // A docker Server without its own Version still names the Engine component.
  t.same(
    parseVersionOutput(
      "docker",
      '{"Client":{"Version":"1"},"Server":{"Components":[{"Name":"Engine","Version":"2"}]}}',
    ),
    {
      client: "1",
      server: "2",
    },
  );
  t.same(
    parseVersionOutput(
      "nerdctl",
      '{"Client":{"Version":"v2"},"Server":{"Components":[{"Name":"runc","Version":"1"}]}}',
    ),
    {
      client: "v2",
      server: undefined,
    },
  );
});

t.test("engineFailure keeps the line that explains, without log decoration", async (t) => {
  t.equal(
    engineFailure(fixture("docker-daemon-down.stderr.txt")),
    "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
  );
  t.equal(
    engineFailure(fixture("podman-remote-down.stderr.txt")),
    'unable to connect to Podman socket: Get "http://d/v4.3.1/libpod/_ping": dial unix /run/podman/podman.sock: connect: no such file or directory',
  );
  t.equal(
    engineFailure(fixture("nerdctl-containerd-down.stderr.txt")),
    'cannot access containerd socket "/run/containerd/containerd.sock": no such file or directory',
  );
  t.equal(engineFailure("FATA[0000] boom\n"), "boom");
  t.equal(engineFailure("warning line\nlast line\n"), "last line");
  t.equal(engineFailure("  \n"), undefined);
});

// Fake runtimes: scripts on a PATH of their own that print a fixture and exit like the real ones.
function fakePath(dir: string, fakes: Partial<Record<RuntimeName, "up" | "down">>) {
  const outputs: Record<RuntimeName, { up: string; down: [string, string] }> = {
    docker: { up: "docker-20.10.json", down: ["docker-daemon-down.json", "docker-daemon-down.stderr.txt"] },
    podman: { up: "podman-4.3-local.json", down: ["", "podman-remote-down.stderr.txt"] },
    nerdctl: { up: "nerdctl-2.0.json", down: ["nerdctl-containerd-down.json", "nerdctl-containerd-down.stderr.txt"] },
  };
  for (const [name, state] of Object.entries(fakes) as [RuntimeName, "up" | "down"][]) {
    const script =
      state === "up"
        ? `#!/bin/sh\nexec /bin/cat '${join(FIXTURES, outputs[name].up)}'\n`
        : `#!/bin/sh\n${outputs[name].down[0] ? `/bin/cat '${join(FIXTURES, outputs[name].down[0])}'\n` : ""}` +
          `/bin/cat '${join(FIXTURES, outputs[name].down[1])}' >&2\nexit 1\n`;
    writeFileSync(join(dir, name), script);
    chmodSync(join(dir, name), 0o755);
  }
  return { PATH: dir };
}

t.test("no engine answers: one line naming each binary and what failed", async (t) => {
  const env = fakePath(t.testdir({}), { docker: "down" });
  const error = await detectRuntime({ env }).catch((e: unknown) => e);
  t.ok(error instanceof PodrunError);
  t.equal((error as PodrunError).reason, "RuntimeUnavailable");
  t.equal(
    (error as Error).message,
    "no container engine answered: docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. " +
      "Is the docker daemon running?; podman: not installed; nerdctl: not installed",
  );
});

t.test("all three down: each failure is named", async (t) => {
  const env = fakePath(t.testdir({}), { docker: "down", podman: "down", nerdctl: "down" });
  const error = (await detectRuntime({ env }).catch((e: unknown) => e)) as Error;
  t.equal(
    error.message,
    "no container engine answered: docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. " +
      'Is the docker daemon running?; podman: unable to connect to Podman socket: Get "http://d/v4.3.1/libpod/_ping": ' +
      "dial unix /run/podman/podman.sock: connect: no such file or directory; nerdctl: cannot access containerd socket " +
      '"/run/containerd/containerd.sock": no such file or directory',
  );
  t.notMatch(error.message, /\n/);
});

t.test("auto: the first of docker, podman, nerdctl whose engine answers", async (t) => {
  t.same(await detectRuntime({ env: fakePath(t.testdir({}), { docker: "down", podman: "up", nerdctl: "up" }) }), {
    name: "podman",
    binary: "podman",
    clientVersion: "4.3.1",
    serverVersion: "4.3.1",
  });
  t.same(await detectRuntime({ env: fakePath(t.testdir({}), { docker: "up", podman: "up" }) }), {
    name: "docker",
    binary: "docker",
    clientVersion: "20.10.24+dfsg1",
    serverVersion: "20.10.24+dfsg1",
  });
  t.same(await detectRuntime({ env: fakePath(t.testdir({}), { nerdctl: "up" }) }), {
    name: "nerdctl",
    binary: "nerdctl",
    clientVersion: "v2.0.3",
    serverVersion: "v2.0.2",
  });
});

t.test("$PODRUN_RUNTIME picks one engine; --runtime (preferred) wins over it", async (t) => {
  const path = fakePath(t.testdir({}), { docker: "up", podman: "up", nerdctl: "up" });
  t.equal((await detectRuntime({ env: { ...path, PODRUN_RUNTIME: "nerdctl" } })).name, "nerdctl");
  t.equal((await detectRuntime({ env: { ...path, PODRUN_RUNTIME: " podman " } })).name, "podman");
  t.equal((await detectRuntime({ env: { ...path, PODRUN_RUNTIME: "" } })).name, "docker", "empty means unset");
  t.equal((await detectRuntime({ preferred: "podman", env: { ...path, PODRUN_RUNTIME: "nerdctl" } })).name, "podman");
});

t.test("a chosen engine that does not answer is not replaced by another", async (t) => {
  const env = fakePath(t.testdir({}), { docker: "down", podman: "up" });
  const error = (await detectRuntime({ preferred: "docker", env }).catch((e: unknown) => e)) as PodrunError;
  t.equal(error.reason, "RuntimeUnavailable");
  t.match(error.message, /^no container engine answered: docker: Cannot connect to the Docker daemon/);
  t.notMatch(error.message, /podman/);
  const fromEnv = (await detectRuntime({ env: { ...env, PODRUN_RUNTIME: "nerdctl" } }).catch(
    (e: unknown) => e,
  )) as Error;
  t.equal(fromEnv.message, "no container engine answered: nerdctl: not installed");
});

t.test("an invalid $PODRUN_RUNTIME is a usage error naming the variable and the supported values", async (t) => {
  const error = await detectRuntime({ env: { PATH: "/nonexistent", PODRUN_RUNTIME: "containerd" } }).catch(
    (e: unknown) => e,
  );
  t.ok(error instanceof UsageError);
  t.equal(
    (error as Error).message,
    'PODRUN_RUNTIME: unsupported value "containerd" (supported: docker, podman, nerdctl)',
  );
});
