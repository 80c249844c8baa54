import t from "tap";
import { getDialect } from "../../lib/runtime/dialects.js";
import { CommandError, type CommandResult } from "../../lib/runtime/exec.js";
import { createPastStorageLeftover, findNameHolder } from "../../lib/runtime/storage-leftover.js";

// A container podman's storage has but its database lost (a `podman create` killed midway) holds
// a name: the create is made again once it is removed, and only then (pure, with a scripted
// engine). The real engine: test/state/robustness/kill-points.podman.e2e.test.ts.

const ID = "0ba4cb256b01dc21fcee9658623aa169c54b6b4866d78d4ac0a7003be2a41504";
const IN_USE = `Error: creating container storage: the container name "default_web_app" is already in use by ${ID}. You have to remove that container to be able to reuse that name: that name is already in use`;
const failure = (stderr: string) =>
  new CommandError({
    shortMessage: "Command failed with exit code 125: podman create …",
    binary: "podman",
    args: ["create"],
    exitCode: 125,
    stdout: "",
    stderr,
  });
const result = (exitCode: number): CommandResult => ({ command: "", exitCode, stdout: "", stderr: "", durationMs: 0 });

/** A create that fails the first `failures` times with `error`, and a run that answers `container exists` with `exists`. */
function script(error: Error, options: { failures?: number; exists?: number } = {}) {
  const ran: string[] = [];
  let left = options.failures ?? 1;
  const create = async () => {
    ran.push("create");
    if (left-- > 0) throw error;
    return "new-id";
  };
  const run = async (args: readonly string[]) => {
    ran.push(args.join(" "));
    return result(args[1] === "exists" ? (options.exists ?? 1) : 0);
  };
  return { ran, create, run };
}

t.test("podman's name-in-use error: the name and the storage ID", async (t) => {
  t.same(findNameHolder(IN_USE), { name: "default_web_app", id: ID });
  t.equal(findNameHolder("Error: no such image"), undefined);
});

t.test("a name held by a container the database does not know: removed, and the create made once more", async (t) => {
  const s = script(failure(IN_USE));
  t.equal(await createPastStorageLeftover(getDialect("podman"), s.create, s.run), "new-id");
  t.same(s.ran, ["create", "container exists default_web_app", `rm -f ${ID}`, "create"]);
});

t.test("a name held by a container the database knows: the error stands, nothing removed", async (t) => {
  const s = script(failure(IN_USE), { exists: 0 });
  await t.rejects(createPastStorageLeftover(getDialect("podman"), s.create, s.run), { name: "CommandError" });
  t.same(s.ran, ["create", "container exists default_web_app"]);
});

t.test("a second failure is the answer; other errors and other engines are not retried", async (t) => {
  const twice = script(failure(IN_USE), { failures: 2 });
  await t.rejects(createPastStorageLeftover(getDialect("podman"), twice.create, twice.run), { name: "CommandError" });
  t.same(twice.ran, ["create", "container exists default_web_app", `rm -f ${ID}`, "create"]);
  const other = script(failure("Error: no such image"));
  await t.rejects(createPastStorageLeftover(getDialect("podman"), other.create, other.run), { name: "CommandError" });
  t.same(other.ran, ["create"]);
  const docker = script(failure(IN_USE));
  await t.rejects(createPastStorageLeftover(getDialect("docker"), docker.create, docker.run), { name: "CommandError" });
  t.same(docker.ran, ["create"]);
});
