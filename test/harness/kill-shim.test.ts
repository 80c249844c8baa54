import t from "tap";
import { fewestCalls } from "./kill-shim-cases.js";
import { describeKillPoint, drawKillPoints, killSeed, seedOf } from "./kill-shim.js";

// How the kill suite draws its points (kill-shim.ts): from the commit's seed unless told one,
// about half the calls with the first and the last always among them, one pull and one network
// kill; and how many calls an up makes at the fewest (kill-shim-cases.ts).

const commit = "d86fbf95b3fc5a1b0e6f1d2c3b4a59687766554433";

t.test("the seed: PODRUN_KILL_SEED, else the commit's hash, else a fixed one", (t) => {
  t.same(
    killSeed({ PODRUN_KILL_SEED: "42" }, () => commit),
    { seed: 42, from: "PODRUN_KILL_SEED" },
  );
  t.same(
    killSeed({}, () => commit),
    { seed: seedOf(commit), from: "commit d86fbf95b3fc" },
  );
  t.not(seedOf(commit), seedOf(commit.replace(/^d/, "e")), "another commit, another seed");
  t.same(
    killSeed({ PODRUN_KILL_SEED: "" }, () => undefined),
    { seed: 20261201, from: "the fixed seed, no git commit" },
  );
  t.end();
});

t.test("half the calls, the first and the last among them, then a timed, a pull and a network kill", (t) => {
  const options = { calls: 23, count: 12, timed: 1, upMs: 2000, pull: true, network: true };
  for (const seed of [1, 2, 3, 20261201, seedOf(commit)]) {
    const points = drawKillPoints({ seed, ...options });
    const numbered = points.flatMap((p) => (typeof p.at === "number" ? [p.at] : []));
    t.equal(numbered.length, 12, `seed ${seed}: 12 calls`);
    t.equal(new Set(numbered).size, 12, "distinct");
    t.same(
      numbered,
      [...numbered].sort((a, b) => a - b),
      "in call order",
    );
    t.equal(numbered[0], 1, "the first call");
    t.equal(numbered.at(-1), 23, "the last call");
    t.equal(points.filter((p) => typeof p.at === "object").length, 1, "one timed kill");
    const pulls = points.filter((p) => p.at === "pull");
    t.equal(pulls.length, 1, "one pull kill");
    t.ok(["proxy", "pod"].includes(pulls[0]!.pullOf!), "of the proxy's image or the pod's");
    t.equal(pulls[0]!.recovery, "up-first", "followed by up");
    t.equal(points.filter((p) => p.at === "network-create").length, 1, "one kill at the network's create");
    t.same(drawKillPoints({ seed, ...options }), points, "the same seed, the same points");
  }
  t.not(
    JSON.stringify(drawKillPoints({ seed: 1, ...options })),
    JSON.stringify(drawKillPoints({ seed: 2, ...options })),
    "another seed, other points",
  );
  const few = drawKillPoints({ seed: 7, calls: 3, count: 12, timed: 0, upMs: 0, pull: false });
  t.same(
    few.map((p) => p.at),
    [1, 2, 3],
    "every call when there are no more",
  );
  t.end();
});

t.test("a point as its case's name shows it", (t) => {
  t.equal(describeKillPoint({ at: 3, phase: "before", recovery: "up-first" }), "before engine call 3");
  t.equal(
    describeKillPoint({ at: "pull", pullOf: "proxy", phase: "during", delaySeconds: 0.05, recovery: "up-first" }),
    "the first pull (the Service proxy's image), 0.05 s into it",
  );
  t.equal(
    describeKillPoint({ at: "network-create", phase: "after", recovery: "down-first" }),
    "after the cluster network's create",
  );
  t.end();
});

t.test("the calls of an up with the cluster network there and nothing else of podrun", (t) => {
  const there = ["network inspect podrun", "image inspect x", "run --detach --name"].map((args) => ({ args }));
  t.equal(fewestCalls(there), 3, "nothing to take off");
  const made = [
    "network inspect podrun",
    "network ls --no-trunc --format",
    "network create --label io.podrun.managed=true",
    "network ls --no-trunc --format",
    "network inspect 3285c66dceee",
    "image inspect x",
    "run --detach --name",
  ].map((args) => ({ args }));
  t.equal(fewestCalls(made), 3, "the network's making taken off");
  const others = [
    "network inspect podrun",
    "container inspect default_x_SVC",
    "ps -a -q --no-trunc",
    "container inspect 26bc37f94c0c 69b4",
    "run --detach --name default_x_SVC",
    "ps -a -q --no-trunc",
    "container inspect de4abb40859f",
  ].map((args) => ({ args }));
  t.equal(fewestCalls(others), 6, "the inspect of other runs' containers before this run's first taken off, not after");
  t.end();
});
