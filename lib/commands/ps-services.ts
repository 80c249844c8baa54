import type { Service } from "kubernetes-types/core/v1.js";
import { formatLabels } from "../text/labels.js";
import { ExitCode, ExitError, UsageError } from "../errors.js";
import { entryOfType } from "../kinds/resource-names.js";
import { parseRefs } from "../kinds/workload-ref.js";
import { formatTable } from "../output/table.js";
import type { ObjectFormat } from "../output/output-format.js";
import { formatObjects, type KubeObject } from "../output/print-objects.js";
import type { ContainerRuntime } from "../runtime/types.js";
import { findServices, type ListedService } from "../services/list-services.js";
import { formatHumanDuration } from "../text/human-duration.js";

// `podrun ps svc`: the Services there are (services/list-services.ts), printed as `kubectl get svc`
// prints them (pkg/printers/internalversion/printers.go printService): NAME, TYPE, CLUSTER-IP,
// EXTERNAL-IP, PORT(S), AGE; -o wide adds SELECTOR, and ENDPOINTS as `kubectl get endpoints`
// prints them (formatEndpoints), since podrun has no Endpoints objects to get.

/** kubectl's loadBalancerWidth: a LoadBalancer's EXTERNAL-IP is cut to it unless -o wide. */
const LOAD_BALANCER_WIDTH = 16;
/** formatEndpoints shows the first 3 endpoints, then `+ N more...`. */
const MAX_ENDPOINTS = 3;

/**
 * The Services `ps` is asked for: the kind as kubectl spells it (`svc`, `service`, `services`)
 * followed by names, or only `svc/NAME` arguments; undefined when the arguments name pods.
 */
export function serviceArguments(args: readonly string[]): string[] | undefined {
  const [first, ...rest] = args;
  if (first !== undefined && !first.includes("/") && entryOfType(first)?.kind === "Service") {
    const typed = rest.find((arg) => arg.includes("/"));
    // kubectl's words for `get svc svc/api`.
    if (typed !== undefined)
      throw new UsageError(
        `"${typed}": there is no need to specify a resource type as a separate argument when passing arguments in resource/name form`,
      );
    return rest;
  }
  const refs = parseRefs(args, "ps");
  const services = refs.filter((ref) => ref.kind === "Service");
  if (services.length === 0) return undefined;
  if (services.length < refs.length)
    throw new UsageError("podrun ps lists pods or Services, not both at once: name them in two commands");
  return services.map((ref) => ref.name);
}

export async function listServices(
  runtime: ContainerRuntime,
  options: {
    namespace?: string | undefined;
    names: readonly string[];
    wide: boolean;
    /** The objects in this format (json: `ps svc --json`), instead of the table. */
    format?: ObjectFormat | undefined;
    /** With format: one Service asked for by name, printed as itself (kubectl's get). */
    single?: boolean | undefined;
    /** The table without its header line. */
    noHeaders?: boolean | undefined;
    stateDir: string;
    nowMs: number;
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
  },
): Promise<void> {
  const { stdout, stderr, names } = options;
  const found = await findServices(runtime, { stateDir: options.stateDir, namespace: options.namespace });
  const selected = names.length === 0 ? found : found.filter((s) => names.includes(s.service.metadata?.name ?? ""));
  const missing = [...new Set(names)].filter((name) => !found.some((s) => s.service.metadata?.name === name));
  try {
    if (options.format?.kind === "json" && !options.single)
      stdout.write(`${JSON.stringify(toServiceList(selected), null, 4)}\n`);
    else if (options.format)
      stdout.write(
        formatObjects(
          selected.map((s) => s.service as KubeObject),
          options.format,
          { single: options.single === true },
        ),
      );
    else if (selected.length > 0) {
      const table = formatServiceTable(selected, {
        namespaceColumn: options.namespace === undefined,
        wide: options.wide,
        nowMs: options.nowMs,
      });
      stdout.write(`${(options.noHeaders ? table.slice(1) : table).join("\n")}\n`);
    } else if (missing.length === 0)
      stderr.write(
        options.namespace === undefined
          ? "No resources found\n"
          : `No resources found in ${options.namespace} namespace.\n`,
      );
  } finally {
    for (const name of missing) stderr.write(`Error from server (NotFound): services "${name}" not found\n`);
  }
  if (missing.length > 0) throw new ExitError(ExitCode.Failed);
}

/** `kubectl get svc -o json`: a kind: List of the Services. */
export function toServiceList(services: readonly ListedService[]): {
  apiVersion: "v1";
  kind: "List";
  items: Service[];
  metadata: { resourceVersion: string };
} {
  return { apiVersion: "v1", kind: "List", items: services.map((s) => s.service), metadata: { resourceVersion: "" } };
}

/** The table's lines, the header first (pure). */
export function formatServiceTable(
  services: readonly ListedService[],
  options: { namespaceColumn: boolean; wide: boolean; nowMs: number },
): string[] {
  const header = [
    ...(options.namespaceColumn ? ["NAMESPACE"] : []),
    "NAME",
    "TYPE",
    "CLUSTER-IP",
    "EXTERNAL-IP",
    "PORT(S)",
    "AGE",
    ...(options.wide ? ["SELECTOR", "ENDPOINTS"] : []),
  ];
  const rows = services.map(({ service, endpoints }) => {
    const created = service.metadata?.creationTimestamp;
    return [
      ...(options.namespaceColumn ? [service.metadata?.namespace ?? "default"] : []),
      service.metadata?.name ?? "",
      service.spec?.type ?? "ClusterIP",
      service.spec?.clusterIPs?.[0] ?? service.spec?.clusterIP ?? "<none>",
      formatExternalIP(service, options.wide),
      formatPorts(service) || "<none>",
      created ? formatHumanDuration(options.nowMs - Date.parse(created)) : "<unknown>",
      ...(options.wide ? [formatLabels(service.spec?.selector), formatEndpoints(endpoints)] : []),
    ];
  });
  return formatTable([header, ...rows]);
}

/** getServiceExternalIP: the externalIPs, a LoadBalancer's ingress (or `<pending>`), an ExternalName's name. */
export function formatExternalIP(service: Service, wide: boolean): string {
  const spec = service.spec ?? {};
  const externalIPs = spec.externalIPs ?? [];
  switch (spec.type ?? "ClusterIP") {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const ingress = formatIngress(service, wide);
      if (externalIPs.length > 0) return [...(ingress ? ingress.split(",") : []), ...externalIPs].join(",");
      return ingress || "<pending>";
    }
    case "ExternalName":
      return spec.externalName ?? "";
    default:
      return "<unknown>";
  }
}

/** loadBalancerStatusStringer: the ingress IPs (else hostnames), sorted and each once; cut unless wide. */
function formatIngress(service: Service, wide: boolean): string {
  const ingress = service.status?.loadBalancer?.ingress ?? [];
  const text = [...new Set(ingress.map((i) => i.ip || i.hostname || "").filter((v) => v !== ""))].sort().join(",");
  return !wide && text.length > LOAD_BALANCER_WIDTH ? `${text.slice(0, LOAD_BALANCER_WIDTH - 3)}...` : text;
}

/** makePortString: `80/TCP`, `80:31234/TCP` with a node port, comma-separated. */
export function formatPorts(service: Service): string {
  return (service.spec?.ports ?? [])
    .map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ""}/${p.protocol ?? "TCP"}`)
    .join(",");
}

/** formatEndpoints: the first 3, then `+ N more...`; `<none>` for none. */
export function formatEndpoints(endpoints: readonly string[]): string {
  if (endpoints.length === 0) return "<none>";
  const shown = endpoints.slice(0, MAX_ENDPOINTS).join(",");
  return endpoints.length > MAX_ENDPOINTS ? `${shown} + ${endpoints.length - MAX_ENDPOINTS} more...` : shown;
}
