import t from "tap";
import { buildProgram, commandShapes } from "../../lib/cli.js";
import { completeWords, completionScript, namespaceOf, type CommandShape } from "../../lib/commands/completion.js";
import { UsageError } from "../../lib/errors.js";

// What `podrun __complete` offers (a table over the real program's commands), and the scripts.
// With an engine and a real shell: kubectl-verbs.ts.

const shapes = (): CommandShape[] => commandShapes(buildProgram());

t.test("commands, their flags, and pods where a command takes them", async (t) => {
  let asked = 0;
  const names = async () => (asked++, ["web", "deployment/api"]);
  const cases: Array<[string[], string, string[]]> = [
    [[], "de", ["describe"]],
    [[], "ro", ["rollout"]],
    [["rollout"], "", ["status"]],
    [["rollout", "status"], "dep", ["deployment/api"]],
    [["logs"], "--ta", ["--tail"]],
    [["logs"], "-", []],
    [["exec"], "w", ["web"]],
    [["delete"], "", ["deployment/api", "web"]],
    [["up"], "", []],
  ];
  for (const [typed, current, expected] of cases) {
    const got = await completeWords(shapes(), typed, current, names);
    if (current === "-") t.ok(got.includes("--container") && got.includes("-c"), "every flag of logs");
    else t.same(got, expected, `${typed.join(" ")} ${current}`);
  }
  t.equal(asked, 3, "the engine is asked only where pods complete (rollout status, exec, delete)");
});

t.test("the namespace of -n, and the scripts", async (t) => {
  t.equal(namespaceOf(["logs", "-n", "ci"]), "ci");
  t.equal(namespaceOf(["logs", "--namespace=ci"]), "ci");
  t.equal(namespaceOf(["logs"]), "default");
  t.match(completionScript("bash"), /complete -o default -F _podrun podrun/);
  t.match(completionScript("zsh"), /^#compdef podrun/);
  t.match(completionScript("fish"), /complete -c podrun/);
  t.throws(() => completionScript("tcsh"), new UsageError('unsupported shell type "tcsh": bash, zsh or fish'));
});
