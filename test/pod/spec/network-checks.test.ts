import t from "tap";
import { networkChecks } from "../../../lib/pod/spec/network-checks.js";

// The checks podrun makes over the network, at the pod's address: httpGet and tcpSocket probes and hooks.

t.test("httpGet and tcpSocket probes and hooks; not exec or grpc", async (t) => {
  t.same(
    networkChecks({
      spec: {
        initContainers: [{ name: "sidecar", restartPolicy: "Always", startupProbe: { tcpSocket: { port: 9000 } } }],
        containers: [
          {
            name: "web",
            readinessProbe: { httpGet: { port: 8080, path: "/" } },
            livenessProbe: { exec: { command: ["true"] } },
            lifecycle: { preStop: { httpGet: { port: 8080, path: "/quit" } } },
          },
          {
            name: "db",
            readinessProbe: { grpc: { port: 5000 } },
            lifecycle: { postStart: { exec: { command: ["true"] } } },
          },
        ],
      },
    }),
    ["sidecar: startupProbe tcpSocket", "web: readinessProbe httpGet", "web: preStop httpGet"],
  );
  t.same(networkChecks({ spec: { containers: [{ name: "app" }] } }), []);
});
