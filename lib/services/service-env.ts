import type { EnvVar, PodSpec, Service } from "kubernetes-types/core/v1.js";
import { DEFAULT_NAMESPACE } from "../manifest/defaults.js";

// The Service environment variables a container starts with, as the kubelet makes them:
// getServiceEnvVarMap (pkg/kubelet/kubelet_pods.go) picks the Services, FromServices
// (pkg/kubelet/envvars/envvars.go) spells their variables.
//
// Which Services: those of the pod's namespace with a cluster IP (not None, not an ExternalName's
// empty one), when the pod's enableServiceLinks is unset or true. The kubelet also always adds the
// `kubernetes` Service of the default namespace (KUBERNETES_SERVICE_HOST and the rest): podrun runs
// no API server, so there is no such Service and no such variable.
//
// Where they go: the kubelet (makeEnvironmentVariables) lists the container's own env first, in
// its order, then the Service variables whose names the container did not set itself: the
// container's env wins. Its `$(VAR)` references may name Service variables too. The kubelet reads
// the Services from a map, in no order; podrun's order is the Services' by name, so that a
// container's env is the same from one run to the next.

/** A Service of the run and the cluster IP podrun gave it (undefined: none yet, or headless). */
export interface ServiceAddress {
  service: Service;
  clusterIP: string | undefined;
}

/** The Service variables of a container of a pod in `namespace`, for the Services given. */
export function serviceEnvVars(services: readonly ServiceAddress[], namespace: string): EnvVar[] {
  const byName = new Map<string, ServiceAddress>();
  for (const entry of services) {
    const { service, clusterIP } = entry;
    const name = service.metadata?.name;
    // IsServiceIPSet; an ExternalName Service has no cluster IP.
    if (!name || !clusterIP || clusterIP === "None" || service.spec?.type === "ExternalName") continue;
    if ((service.metadata?.namespace || DEFAULT_NAMESPACE) !== namespace) continue;
    byName.set(name, entry);
  }
  const names = [...byName.keys()].sort();
  return names.flatMap((name) => fromService(name, byName.get(name)!.service, byName.get(name)!.clusterIP!));
}

/** FromServices for one Service: the `_SERVICE_` variables, then the docker-links ones. */
function fromService(name: string, service: Service, clusterIP: string): EnvVar[] {
  const ports = service.spec?.ports ?? [];
  const first = ports[0];
  // Validation gives every Service with a cluster IP a port; a Service without one has nothing to say.
  if (!first) return [];
  const prefix = envName(name);
  const vars: EnvVar[] = [
    { name: `${prefix}_SERVICE_HOST`, value: clusterIP },
    { name: `${prefix}_SERVICE_PORT`, value: String(first.port) },
  ];
  // Every named port (only the first may be unnamed).
  for (const port of ports)
    if (port.name) vars.push({ name: `${prefix}_SERVICE_PORT_${envName(port.name)}`, value: String(port.port) });
  // makeLinkVariables: what docker's --link set, the first port also as `<NAME>_PORT`.
  ports.forEach((port, i) => {
    const protocol = (port.protocol || "TCP").toLowerCase();
    const url = `${protocol}://${joinHostPort(clusterIP, port.port)}`;
    if (i === 0) vars.push({ name: `${prefix}_PORT`, value: url });
    const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
    vars.push(
      { name: portPrefix, value: url },
      { name: `${portPrefix}_PROTO`, value: protocol },
      { name: `${portPrefix}_PORT`, value: String(port.port) },
      { name: `${portPrefix}_ADDR`, value: clusterIP },
    );
  });
  return vars;
}

/** makeEnvVariableName: upper case, '-' as '_' (a Service name is a DNS-1123 label). */
function envName(name: string): string {
  return name.replaceAll("-", "_").toUpperCase();
}

/** Go's net.JoinHostPort: an IPv6 address in brackets. */
function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Whether a pod gets the Service variables: its enableServiceLinks, true when unset (v1.DefaultEnableServiceLinks). */
export function enableServiceLinks(spec: Pick<PodSpec, "enableServiceLinks"> | undefined): boolean {
  return spec?.enableServiceLinks !== false;
}
