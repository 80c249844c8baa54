import t from "tap";
import { formatServiceDescription } from "../../lib/output/describe-service.js";

// `describe svc/NAME` in kubectl's layout: its fields, each port with its target, node port and
// endpoints, aligned as Go's tabwriter aligns them.

t.test("a NodePort Service of two ports", async (t) => {
  const text = formatServiceDescription({
    service: {
      metadata: { name: "api", namespace: "shop", labels: { app: "api" } },
      spec: {
        type: "NodePort",
        selector: { tier: "web", app: "api" },
        clusterIP: "10.89.0.7",
        clusterIPs: ["10.89.0.7"],
        ports: [
          { port: 80, targetPort: "http", protocol: "TCP", nodePort: 30080 },
          { name: "metrics", port: 9090, targetPort: 9090, protocol: "TCP" },
        ],
        sessionAffinity: "None",
        externalTrafficPolicy: "Cluster",
      },
    },
    endpointsByPort: [["10.88.0.5:8080", "10.88.0.6:8080"], []],
    endpoints: ["10.88.0.5:8080", "10.88.0.6:8080"],
    events: [],
    nowMs: 0,
  });
  t.equal(
    text,
    [
      "Name:                     api",
      "Namespace:                shop",
      "Labels:                   app=api",
      "Annotations:              <none>",
      "Selector:                 app=api,tier=web",
      "Type:                     NodePort",
      "IP:                       10.89.0.7",
      "IPs:                      10.89.0.7",
      "Port:                     <unset>  80/TCP",
      "TargetPort:               http/TCP",
      "NodePort:                 <unset>  30080/TCP",
      "Endpoints:                10.88.0.5:8080,10.88.0.6:8080",
      "Port:                     metrics  9090/TCP",
      "TargetPort:               9090/TCP",
      "Endpoints:                ",
      "Session Affinity:         None",
      "External Traffic Policy:  Cluster",
      "Events:                   <none>",
      "",
    ]
      .join("\n")
      .replace("Endpoints:                \n", "Endpoints:\n"),
  );
});

t.test("a headless Service without ports: its addresses alone", async (t) => {
  const text = formatServiceDescription({
    service: { metadata: { name: "db" }, spec: { clusterIP: "None", selector: { app: "db" } } },
    endpointsByPort: [],
    endpoints: ["10.88.0.9"],
    events: [],
    nowMs: 0,
  });
  t.match(text, /\nIP: +None\nEndpoints: +10\.88\.0\.9\nSession Affinity: +None\n/);
});
