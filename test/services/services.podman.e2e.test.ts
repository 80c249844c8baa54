import t from "tap";
import { servicesTest } from "./services-stack.js";

// The Services e2e on podman (test/services/services-stack.ts says what it checks); docker's is
// services.docker.e2e.test.ts. One file per engine: tap runs them in two of its slots.
t.test(
  "podman: Services by name, port mapping, NodePort, LoadBalancer, headless, ExternalName, UDP, namespaces, env, follow the pods",
  async (t) => {
    t.setTimeout(500_000);
    await servicesTest(t, "podman");
  },
);
