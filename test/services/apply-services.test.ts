import t from "tap";
import { planService } from "../../lib/services/apply-services.js";

// What becomes of a Service's proxy at `up`: kept, configured in place (only its routing changed:
// the config is rewritten, the container and its address stay), or made anew (what it publishes
// changed, or it is not running).

const want = { hash: "published-1", specHash: "spec-1" };
const cases: [string, Parameters<typeof planService>[0], string | undefined, ReturnType<typeof planService>][] = [
  ["no proxy yet", undefined, undefined, "create"],
  ["the same Service, running", { running: true, hash: "published-1" }, "spec-1", "keep"],
  ["a routing change (selector, targetPort, affinity…)", { running: true, hash: "published-1" }, "spec-0", "configure"],
  [
    "no stored routing (a proxy of an older podrun, same label)",
    { running: true, hash: "published-1" },
    undefined,
    "configure",
  ],
  [
    "what it publishes changed (node ports, image, address)",
    { running: true, hash: "published-0" },
    "spec-1",
    "create",
  ],
  [
    "a proxy of an older podrun (its label hashed the whole spec)",
    { running: true, hash: undefined },
    undefined,
    "create",
  ],
  ["not running", { running: false, hash: "published-1" }, "spec-1", "create"],
];

t.test("planService", async (t) => {
  for (const [name, existing, stored, expected] of cases) t.equal(planService(existing, stored, want), expected, name);
});
