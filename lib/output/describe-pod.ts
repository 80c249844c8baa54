import type {
  Container,
  ContainerStatus,
  ContainerState as KubeContainerState,
  EnvVar,
  Pod,
  Probe,
  Volume,
} from "kubernetes-types/core/v1.js";
import type { FoldedRow } from "../events/fold.js";
import { formatHumanDuration } from "../text/human-duration.js";
import { fieldText } from "../events/event-key.js";
import { alignTabs } from "./tab-writer.js";

// `podrun describe pod`, in kubectl's layout (pure): kubectl's describePod
// (https://github.com/kubernetes/kubectl/blob/v0.34.0/pkg/describe/describe.go) over the pod as
// `ps -o json` shows it (its status, from the engine), the spec `up` recorded (pod-record.ts:
// ports, command, env and its sources, mounts, probes, volumes) and the event log. A Secret's
// value is never shown: an env var from a Secret names its key and Secret, as kubectl does.

export interface PodDescription {
  /** The pod as the engine shows it (toPodObject): metadata, status. */
  status: Pod;
  /** The spec `up` recorded; undefined for a pod of an older podrun (then the engine's word alone). */
  spec: Pod | undefined;
  /** `Kind/name` of the workload it belongs to. */
  controlledBy?: string | undefined;
  /** The machine's name: the node. */
  node: string;
  /** The pod's events, folded (the event log), oldest first. */
  events: readonly FoldedRow[];
  nowMs: number;
}

export function formatPodDescription(input: PodDescription): string {
  const { status, spec } = input;
  const meta = { ...status.metadata, ...spec?.metadata, labels: status.metadata?.labels };
  const lines: string[] = [
    `Name:\t${meta.name ?? ""}`,
    `Namespace:\t${meta.namespace ?? "default"}`,
    `Service Account:\t${spec?.spec?.serviceAccountName ?? "default"}`,
    `Node:\t${input.node}`,
    `Start Time:\t${formatTime(status.status?.startTime)}`,
    ...keyValues("Labels", meta.labels),
    ...keyValues("Annotations", meta.annotations),
    `Status:\t${status.status?.phase ?? "Unknown"}`,
    ...(status.status?.reason ? [`Reason:\t${status.status.reason}`, `Message:\t${status.status.message ?? ""}`] : []),
    `IP:\t${status.status?.podIP ?? ""}`,
    "IPs:",
    ...(status.status?.podIPs?.length ? status.status.podIPs.map((ip) => `  IP:\t${ip.ip}`) : ["  <none>"]),
  ];
  if (input.controlledBy) lines.push(`Controlled By:\t${input.controlledBy}`);
  const specs = new Map(
    [...(spec?.spec?.initContainers ?? []), ...(spec?.spec?.containers ?? [])].map((c) => [c.name, c]),
  );
  const section = (title: string, statuses: readonly ContainerStatus[] | undefined) => {
    if (!statuses?.length) return;
    lines.push(`${title}:`);
    for (const s of statuses) lines.push(...describeContainer(s, specs.get(s.name)));
  };
  section("Init Containers", status.status?.initContainerStatuses);
  section("Containers", status.status?.containerStatuses);
  lines.push("Conditions:", "  Type\tStatus");
  for (const c of status.status?.conditions ?? []) lines.push(`  ${c.type}\t${c.status}`);
  lines.push("  PodScheduled\tTrue");
  lines.push(...describeVolumes(spec?.spec?.volumes));
  lines.push(`QoS Class:\t${qosClass(spec)}`, "Node-Selectors:\t<none>", "Tolerations:\t<none>");
  lines.push(...describeEvents(input.events, input.nowMs));
  return `${alignTabs(lines).join("\n")}\n`;
}

/** `Labels:` and the like: one `k=v` a line, sorted; `<none>` for none. */
export function keyValues(title: string, values: Readonly<Record<string, string>> | undefined): string[] {
  const entries = Object.entries(values ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (entries.length === 0) return [`${title}:\t<none>`];
  return entries.map(([k, v], i) => `${i === 0 ? `${title}:` : ""}\t${k}=${v}`);
}

function describeContainer(status: ContainerStatus, container: Container | undefined): string[] {
  const ports = container?.ports ?? [];
  const lines = [
    `  ${status.name}:`,
    `    Container ID:\t${status.containerID ?? ""}`,
    `    Image:\t${status.image}`,
    `    Image ID:\t${status.imageID}`,
    `    Port${ports.length > 1 ? "s" : ""}:\t${ports.length ? ports.map((p) => `${p.containerPort}/${p.protocol ?? "TCP"}`).join(", ") : "<none>"}`,
    `    Host Port${ports.length > 1 ? "s" : ""}:\t${ports.length ? ports.map((p) => `${p.hostPort ?? 0}/${p.protocol ?? "TCP"}`).join(", ") : "<none>"}`,
  ];
  for (const [title, words] of [
    ["Command", container?.command],
    ["Args", container?.args],
  ] as const)
    if (words?.length) lines.push(`    ${title}:`, ...words.map((word) => `      ${word}`));
  lines.push(...describeState("State", status.state), ...describeState("Last State", status.lastState, true));
  lines.push(`    Ready:\t${status.ready ? "True" : "False"}`, `    Restart Count:\t${status.restartCount}`);
  for (const [title, quantities] of [
    ["Limits", container?.resources?.limits],
    ["Requests", container?.resources?.requests],
  ] as const) {
    const entries = Object.entries(quantities ?? {});
    if (entries.length) lines.push(`    ${title}:`, ...entries.map(([k, v]) => `      ${k}:\t${String(v)}`));
  }
  for (const [title, probe] of [
    ["Liveness", container?.livenessProbe],
    ["Readiness", container?.readinessProbe],
    ["Startup", container?.startupProbe],
  ] as const)
    if (probe) lines.push(`    ${title}:\t${describeProbe(probe)}`);
  lines.push(...describeEnv(container));
  const mounts = container?.volumeMounts ?? [];
  lines.push(
    mounts.length ? "    Mounts:" : "    Mounts:\t<none>",
    ...mounts.map(
      (m) =>
        `      ${m.mountPath}${m.subPath ? ` from ${m.name} (${m.readOnly ? "ro" : "rw"},path="${m.subPath}")` : ` from ${m.name} (${m.readOnly ? "ro" : "rw"})`}`,
    ),
  );
  return lines;
}

function describeState(title: string, state: KubeContainerState | undefined, last = false): string[] {
  if (state?.running) return [`    ${title}:\tRunning`, `      Started:\t${formatTime(state.running.startedAt)}`];
  if (state?.waiting)
    return [`    ${title}:\tWaiting`, ...(state.waiting.reason ? [`      Reason:\t${state.waiting.reason}`] : [])];
  if (state?.terminated) {
    const t = state.terminated;
    return [
      `    ${title}:\tTerminated`,
      ...(t.reason ? [`      Reason:\t${t.reason}`] : []),
      ...(t.message ? [`      Message:\t${t.message.replace(/\n/g, " ")}`] : []),
      `      Exit Code:\t${t.exitCode}`,
      `      Started:\t${formatTime(t.startedAt)}`,
      `      Finished:\t${formatTime(t.finishedAt)}`,
    ];
  }
  return last ? [] : [`    ${title}:\tWaiting`];
}

/** kubectl's probe line: `http-get http://:8080/healthz delay=0s timeout=1s period=10s #success=1 #failure=3`. */
export function describeProbe(probe: Probe): string {
  const action = probe.exec
    ? `exec [${(probe.exec.command ?? []).join(" ")}]`
    : probe.httpGet
      ? `http-get ${(probe.httpGet.scheme ?? "HTTP").toLowerCase()}://${probe.httpGet.host ?? ""}:${probe.httpGet.port}${probe.httpGet.path ?? ""}`
      : probe.tcpSocket
        ? `tcp-socket ${probe.tcpSocket.host ?? ""}:${probe.tcpSocket.port}`
        : probe.grpc
          ? `grpc <pod>:${probe.grpc.port} ${probe.grpc.service ?? ""}`.trimEnd()
          : "unknown";
  return `${action} delay=${probe.initialDelaySeconds ?? 0}s timeout=${probe.timeoutSeconds ?? 1}s period=${probe.periodSeconds ?? 10}s #success=${probe.successThreshold ?? 1} #failure=${probe.failureThreshold ?? 3}`;
}

/** The env, as kubectl describes it: values, and the source of each value it did not write (never a Secret's value). */
function describeEnv(container: Container | undefined): string[] {
  const env = container?.env ?? [];
  const from = container?.envFrom ?? [];
  const lines = env.length ? ["    Environment:", ...env.map(describeEnvVar)] : ["    Environment:\t<none>"];
  if (from.length) {
    lines.push("    Environment Variables from:");
    for (const source of from) {
      const [name, kind, optional] = source.configMapRef
        ? [source.configMapRef.name, "ConfigMap", source.configMapRef.optional]
        : [source.secretRef?.name, "Secret", source.secretRef?.optional];
      lines.push(
        `      ${name ?? ""}\t${kind}\t${source.prefix ? `with prefix '${source.prefix}'  ` : ""}Optional: ${optional === true}`,
      );
    }
  }
  return lines;
}

function describeEnvVar(variable: EnvVar): string {
  const from = variable.valueFrom;
  if (!from) return `      ${variable.name}:\t${variable.value ?? ""}`;
  if (from.secretKeyRef)
    return `      ${variable.name}:\t<set to the key '${from.secretKeyRef.key}' in secret '${from.secretKeyRef.name ?? ""}'>\tOptional: ${from.secretKeyRef.optional === true}`;
  if (from.configMapKeyRef)
    return `      ${variable.name}:\t<set to the key '${from.configMapKeyRef.key}' of config map '${from.configMapKeyRef.name ?? ""}'>\tOptional: ${from.configMapKeyRef.optional === true}`;
  if (from.fieldRef)
    return `      ${variable.name}:\t (${from.fieldRef.apiVersion ?? "v1"}:${from.fieldRef.fieldPath})`;
  if (from.resourceFieldRef)
    return `      ${variable.name}:\t${from.resourceFieldRef.resource} (${from.resourceFieldRef.containerName ?? ""})`;
  return `      ${variable.name}:\t<unknown source>`;
}

function describeVolumes(volumes: readonly Volume[] | undefined): string[] {
  if (!volumes?.length) return ["Volumes:\t<none>"];
  const lines = ["Volumes:"];
  for (const v of volumes) {
    lines.push(`  ${v.name}:`);
    if (v.emptyDir)
      lines.push(
        "    Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)",
        `    Medium:\t${v.emptyDir.medium ?? ""}`,
        `    SizeLimit:\t${v.emptyDir.sizeLimit ?? "<unset>"}`,
      );
    else if (v.configMap)
      lines.push(
        "    Type:\tConfigMap (a volume populated by a ConfigMap)",
        `    Name:\t${v.configMap.name ?? ""}`,
        `    Optional:\t${v.configMap.optional === true}`,
      );
    else if (v.secret)
      lines.push(
        "    Type:\tSecret (a volume populated by a Secret)",
        `    SecretName:\t${v.secret.secretName ?? ""}`,
        `    Optional:\t${v.secret.optional === true}`,
      );
    else if (v.hostPath)
      lines.push(
        "    Type:\tHostPath (bare host directory volume)",
        `    Path:\t${v.hostPath.path}`,
        `    HostPathType:\t${v.hostPath.type ?? ""}`,
      );
    else if (v.persistentVolumeClaim)
      lines.push(
        "    Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
        `    ClaimName:\t${v.persistentVolumeClaim.claimName}`,
        `    ReadOnly:\t${v.persistentVolumeClaim.readOnly === true}`,
      );
    else if (v.downwardAPI) lines.push("    Type:\tDownwardAPI (a volume populated by information about the pod)");
    else if (v.projected)
      lines.push("    Type:\tProjected (a volume that contains injected data from multiple sources)");
    else lines.push("    Type:\t<unknown>");
  }
  return lines;
}

/** The QoS class as the kubelet computes it from every container's requests and limits (pkg/apis/core/helper/qos). */
export function qosClass(spec: Pod | undefined): string {
  const containers = [...(spec?.spec?.initContainers ?? []), ...(spec?.spec?.containers ?? [])];
  const resources = containers.map((c) => c.resources ?? {});
  const any = resources.some((r) => Object.keys(r.requests ?? {}).length || Object.keys(r.limits ?? {}).length);
  if (!any) return "BestEffort";
  const guaranteed = resources.every((r) =>
    ["cpu", "memory"].every(
      (k) => r.limits?.[k] !== undefined && String(r.requests?.[k] ?? r.limits[k]) === String(r.limits[k]),
    ),
  );
  return guaranteed ? "Guaranteed" : "Burstable";
}

/** The `Events:` table, as kubectl's DescribeEvents prints the folded rows. */
export function describeEvents(rows: readonly FoldedRow[], nowMs: number): string[] {
  if (rows.length === 0) return ["Events:\t<none>"];
  const lines = ["Events:", "  Type\tReason\tAge\tFrom\tMessage", "  ----\t------\t----\t----\t-------"];
  for (const row of rows) {
    const age = formatHumanDuration(nowMs - row.lastMs);
    const seen = row.count > 1 ? `${age} (x${row.count} over ${formatHumanDuration(nowMs - row.firstMs)})` : age;
    const message = fieldText(row.event.message).replace(/\n/g, " ");
    lines.push(
      `  ${fieldText(row.event.type)}\t${fieldText(row.event.reason)}\t${seen}\t${fieldText(row.event.source?.component) || "podrun"}\t${message}`,
    );
  }
  return lines;
}

/** RFC 1123 with a numeric zone, as kubectl prints times: `Thu, 04 Dec 2026 02:00:00 +0000`. */
function formatTime(iso: string | undefined): string {
  if (!iso) return "<unknown>";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return new Date(ms).toUTCString().replace(/GMT$/, "+0000");
}
