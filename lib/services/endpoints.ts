import type { ContainerPort, Service, ServicePort } from "kubernetes-types/core/v1.js";
import { DEFAULT_NAMESPACE } from "../manifest/defaults.js";

// Where a Service's connections go, as the EndpointSlice controller
// (staging/src/k8s.io/endpointslice/reconciler.go and utils.go) lists the endpoints and kube-proxy
// routes to them: the pods of the Service's namespace that its selector matches, with an IP, and
// ready (every one of them with publishNotReadyAddresses); a port's targetPort resolved per pod
// by podutil.FindPort (pkg/api/v1/pod/util.go). podrun has no Endpoints objects: this is computed
// from the pods of the run each time they change.

/** A pod as the endpoints see it. */
export interface CandidatePod {
  name: string;
  namespace: string;
  labels: Readonly<Record<string, string>> | undefined;
  /** Its sandbox's address on the cluster network; undefined until it has one. */
  ip: string | undefined;
  /** Its Ready condition. */
  ready: boolean;
  /**
   * The containers whose ports a targetPort name may name: the app containers, and the sidecars
   * (init containers with restartPolicy Always), as FindPort looks at both.
   */
  containers: readonly { ports?: readonly ContainerPort[] }[];
}

export interface Endpoint {
  ip: string;
  /** The port on the pod: the targetPort, resolved. */
  port: number;
  /** The pod's name. */
  pod: string;
}

/** One port of a Service and where its connections go. */
export interface ServicePortEndpoints {
  /** The Service port's name ("" for an unnamed one). */
  name: string;
  protocol: string;
  /** The Service's port. */
  port: number;
  endpoints: Endpoint[];
}

/**
 * Whether the Service's selector matches the labels (every pair equal). A Service without a
 * selector selects nothing: its endpoints would be written by hand, and podrun writes none. An
 * empty selector is no selector too: the API server stores `{}` as none.
 */
export function serviceSelects(service: Service, podLabels: Readonly<Record<string, string>> | undefined): boolean {
  const selector = service.spec?.selector;
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([key, value]) => podLabels?.[key] === value);
}

/** The pods that are endpoints of the Service, in the order given (the ports aside). */
function endpointPods(service: Service, pods: readonly CandidatePod[]): (CandidatePod & { ip: string })[] {
  // The controller gives an ExternalName Service no endpoints, whatever its selector.
  if (service.spec?.type === "ExternalName") return [];
  const namespace = service.metadata?.namespace || DEFAULT_NAMESPACE;
  const notReadyToo = service.spec?.publishNotReadyAddresses === true;
  return pods.filter(
    (pod): pod is CandidatePod & { ip: string } =>
      pod.namespace === namespace && !!pod.ip && (pod.ready || notReadyToo) && serviceSelects(service, pod.labels),
  );
}

/**
 * FindPort: a number is the pod's port as it is; a name is the container port of that name and
 * the Service port's protocol (a pod without one is no endpoint of that port); unset, the port.
 */
export function findTargetPort(pod: CandidatePod, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort;
  if (target === undefined || target === 0 || target === "") return servicePort.port;
  if (typeof target === "number") return target;
  const protocol = servicePort.protocol || "TCP";
  for (const container of pod.containers)
    for (const port of container.ports ?? [])
      if (port.name === target && (port.protocol || "TCP") === protocol) return port.containerPort;
  return undefined;
}

/** Each port of the Service with its endpoints, as kube-proxy would route them. */
export function serviceEndpoints(service: Service, pods: readonly CandidatePod[]): ServicePortEndpoints[] {
  const selected = endpointPods(service, pods);
  return (service.spec?.ports ?? []).map((servicePort) => ({
    name: servicePort.name ?? "",
    protocol: servicePort.protocol || "TCP",
    port: servicePort.port,
    endpoints: selected.flatMap((pod) => {
      const port = findTargetPort(pod, servicePort);
      return port === undefined ? [] : [{ ip: pod.ip, port, pod: pod.name }];
    }),
  }));
}

/**
 * The addresses a headless Service's name answers with: its endpoint pods' IPs (ready ones, or
 * all with publishNotReadyAddresses), each once, whatever its ports: a headless Service without
 * ports has endpoints too.
 */
export function headlessAddresses(service: Service, pods: readonly CandidatePod[]): string[] {
  return [...new Set(endpointPods(service, pods).map((pod) => pod.ip))];
}
