import t from "tap";
import { getDialect } from "../../lib/runtime/dialects.js";
import { buildFindNamedArgs, parseNamedContainers, parseNamedPods } from "../../lib/runtime/find-named.js";

// Asking the engine who holds a name (pure). The real engines answer in
// test/commands/up-reconcile.e2e.test.ts (a foreign container with a pod's name).

t.test("argv: one ps for the containers, plus pod ps on podman only", async (t) => {
  const request = { containers: ["default_web_POD", "default_web_app", "default_web_app"], sandbox: "default_web" };
  const ps = ["ps", "-a", "--no-trunc", "--filter", "name=default_web_POD", "--filter", "name=default_web_app", "--format", "{{.ID}}\t{{.Names}}"];
  t.strictSame(buildFindNamedArgs(getDialect("docker"), request), { containers: ps }, "docker: the sandbox is only its infra container");
  t.strictSame(buildFindNamedArgs(getDialect("nerdctl"), request), { containers: ps }, "nerdctl: likewise");
  t.strictSame(buildFindNamedArgs(getDialect("podman"), request), {
    containers: ps,
    pods: ["pod", "ps", "--no-trunc", "--filter", "name=default_web", "--format", "json"],
  });
  t.strictSame(buildFindNamedArgs(getDialect("podman"), { containers: [] }), {}, "nothing to ask");
});

t.test("containers: only exact names count (the filters match substrings or patterns)", async (t) => {
  const stdout = [
    "aaa\tdefault_web_app",
    "bbb\tdefault_web_app2", // a substring match of nerdctl, a pattern match of docker
    "ccc\txdefault_web_app",
    "ddd\tother,/default_web_POD", // docker: legacy link names after a comma
    "",
  ].join("\n");
  t.strictSame(parseNamedContainers(stdout, ["default_web_app", "default_web_POD"]), [
    { kind: "container", id: "aaa", name: "default_web_app" },
    { kind: "container", id: "ddd", name: "default_web_POD" },
  ]);
  t.strictSame(parseNamedContainers("", ["x"]), []);
});

t.test("podman pods: the exact name, with the infra container's ID and the pod's labels", async (t) => {
  const stdout = JSON.stringify([
    { Id: "p1", Name: "default_web", InfraId: "i1", Labels: {} },
    { Id: "p2", Name: "default_web2", InfraId: "i2" },
  ]);
  t.strictSame(parseNamedPods(stdout, "default_web"), [{ kind: "pod", id: "p1", name: "default_web", infraId: "i1", labels: {} }]);
  // A pod whose `pod create` was killed before its infra container: no InfraId, its labels only.
  const halfMade = JSON.stringify([{ Id: "p3", Name: "default_web", InfraId: "", Labels: { "io.podrun.managed": "true" } }]);
  t.strictSame(parseNamedPods(halfMade, "default_web"), [{ kind: "pod", id: "p3", name: "default_web", labels: { "io.podrun.managed": "true" } }]);
  t.strictSame(parseNamedPods("[]", "default_web"), []);
});
