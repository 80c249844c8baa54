import t from "tap";
import { containerProbes, normalizeProbe } from "../../lib/probes/probe-spec.js";

const container = { ports: [{ name: "http", containerPort: 8080 }, { containerPort: 9090 }] };

t.test("timings in milliseconds, with the API server's defaults", async (t) => {
  t.same(normalizeProbe("Readiness", { exec: { command: ["true"] } }, container), {
    type: "Readiness",
    action: { kind: "exec", command: ["true"] },
    initialDelayMs: 0,
    periodMs: 10_000,
    timeoutMs: 1000,
    successThreshold: 1,
    failureThreshold: 3,
  });
  const probe = normalizeProbe(
    "Startup",
    { tcpSocket: { port: 5432 }, initialDelaySeconds: 2, periodSeconds: 3, timeoutSeconds: 4, failureThreshold: 30 },
    container,
  );
  t.same(
    [probe.initialDelayMs, probe.periodMs, probe.timeoutMs, probe.successThreshold, probe.failureThreshold],
    [2000, 3000, 4000, 1, 30],
  );
});

t.test("ports by number or by name; an unknown name makes the probe error", async (t) => {
  t.same(
    normalizeProbe(
      "Readiness",
      { httpGet: { port: "http", path: "/healthz", httpHeaders: [{ name: "X-A", value: "1" }] } },
      container,
    ).action,
    {
      kind: "httpGet",
      scheme: "http",
      port: 8080,
      path: "/healthz",
      headers: [{ name: "X-A", value: "1" }],
    },
  );
  t.same(
    normalizeProbe("Readiness", { httpGet: { port: 9090, scheme: "HTTPS", host: "127.0.0.1" } }, container).action,
    {
      kind: "httpGet",
      scheme: "https",
      host: "127.0.0.1",
      port: 9090,
      path: "/",
      headers: [],
    },
  );
  t.same(normalizeProbe("Readiness", { tcpSocket: { port: "9090" } }, container).action, {
    kind: "tcpSocket",
    port: 9090,
  });
  t.same(normalizeProbe("Readiness", { tcpSocket: { port: "metrics" } }, container).action, {
    kind: "invalid",
    error: "port metrics not found",
  });
  t.same(normalizeProbe("Readiness", { grpc: { port: 9000 } }, container).action, { kind: "grpc", port: 9000 });
});

t.test("a container's startup and readiness probes; liveness is not acted on", async (t) => {
  const probes = containerProbes({
    name: "a",
    livenessProbe: { exec: { command: ["x"] } },
    readinessProbe: { exec: { command: ["y"] } },
  });
  t.equal(probes.startup, undefined);
  t.equal(probes.readiness?.action.kind, "exec");
  t.notOk("liveness" in probes);
});
