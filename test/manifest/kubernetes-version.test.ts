import t from "tap";
import { KUBERNETES_API_VERSION, SCHEMA_MODELS } from "../../lib/manifest/kubernetes-version.js";
import { SCHEMA } from "../../lib/manifest/schema.generated.js";

t.test("the named Kubernetes version is the one of the generated schema", async (t) => {
  t.match(KUBERNETES_API_VERSION, /^v1\.\d+$/);
  t.ok(
    SCHEMA.source.startsWith(`${SCHEMA_MODELS} `),
    `regenerated from ${SCHEMA.source}: check the rules and KUBERNETES_API_VERSION, then SCHEMA_MODELS`,
  );
});
