import { BlockList, isIP } from "node:net";
import type { Service } from "kubernetes-types/core/v1.js";
import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { DEFAULT_NAMESPACE } from "../defaults.js";
import { reportInvalid } from "./context.js";
import { validateObjectMeta } from "./metadata.js";
import {
  findDns1123LabelErrors,
  findDns1123SubdomainErrors,
  findLabelValueErrors,
  findPortNameErrors,
  findPortNumberErrors,
  findQualifiedNameErrors,
} from "./names.js";
import { asArray, asInteger, asObject, asString, isSet, listObjectItems, type RawObject } from "./raw.js";

// ValidateService (pkg/apis/core/validation/validation.go, with ValidateServiceClusterIPsRelatedFields,
// validateServicePort, validateServiceExternalTrafficPolicy and their neighbours), on the object as
// the API server validates it: after SetDefaults_Service (pkg/apis/core/v1/defaults.go) and the
// create strategy's NormalizeClusterIPs (pkg/registry/core/service/strategy.go). Defaults that
// always fill a field (type, protocol, sessionAffinity, the traffic policies, the affinity timeout)
// make the server's Required errors for them unreachable on create, so they are not ported. The
// enums the generated schema holds (type, protocol, sessionAffinity, the traffic policies,
// ipFamilyPolicy) are the structural checker's to refuse; values outside them are skipped here.
// The node ports are checked as the API server's allocator checks them before validation
// (pkg/registry/core/service/storage/alloc.go), in the default --service-node-port-range.

/** The default --service-node-port-range of the API server, which podrun takes nodePorts from. */
export const SERVICE_NODE_PORT_RANGE = { min: 30000, max: 32767 } as const;
/** ports.KubeletPort (pkg/cluster/ports): a LoadBalancer may not expose it. */
const KUBELET_PORT = 10250;
/** core.MaxClientIPServiceAffinitySeconds. */
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
/** v1.DefaultClientIPServiceAffinitySeconds. */
const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;
const TRAFFIC_DISTRIBUTIONS = ["PreferClose", "PreferSameZone", "PreferSameNode"];
const SOURCE_RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges";
const TOPOLOGY_MODE_ANNOTATION = "service.kubernetes.io/topology-mode";
const TOPOLOGY_HINTS_ANNOTATION = "service.kubernetes.io/topology-aware-hints";
const IP_MSG = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const CIDR_MSG = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";
const LB_ONLY = "may only be used when `type` is 'LoadBalancer'";
const NOT_IN_RANGE = `provided port is not in the valid range. The range of valid ports is ${SERVICE_NODE_PORT_RANGE.min}-${SERVICE_NODE_PORT_RANGE.max}`;
const ALLOCATED = "provided port is already allocated";

const SPEC = FieldPath.root().child("spec");
const PORTS = SPEC.child("ports");

/** The fields of a spec the rules read, as the API server holds them once defaulted. */
interface ServiceView {
  spec: RawObject;
  type: string;
  /** ClusterIPs after NormalizeClusterIPs: `[clusterIP]` when only the singular is given. */
  clusterIPs: string[];
  headless: boolean;
  ports: [number, RawObject][];
}

function view(object: RawObject): ServiceView {
  const spec = asObject(object.spec) ?? {};
  const clusterIP = asString(spec.clusterIP) ?? "";
  const given = (asArray(spec.clusterIPs) ?? []).filter((ip): ip is string => typeof ip === "string");
  const clusterIPs = clusterIP !== "" && given.length === 0 ? [clusterIP] : given;
  return {
    spec,
    type: asString(spec.type) || "ClusterIP",
    clusterIPs,
    headless: clusterIPs.length === 1 && clusterIPs[0] === "None",
    ports: listObjectItems(spec.ports),
  };
}

const protocolOf = (port: RawObject) => asString(port.protocol) || "TCP";
const nodePortOf = (port: RawObject) => asInteger(port.nodePort) ?? 0;
const hasNodePorts = (type: string) => type === "NodePort" || type === "LoadBalancer";
/** apiservice.ExternallyAccessible: reachable from outside the cluster network. */
const externallyAccessible = (v: ServiceView) =>
  hasNodePorts(v.type) || (v.type === "ClusterIP" && (asArray(v.spec.externalIPs)?.length ?? 0) > 0);
/** apiservice.NeedsHealthCheck. */
const needsHealthCheck = (v: ServiceView) => v.type === "LoadBalancer" && v.spec.externalTrafficPolicy === "Local";

/** Validates a Service (raw object, after the structural check) as the API server does on create. */
export function validateService(value: unknown, report: Reporter): void {
  const object = asObject(value);
  if (!object) return;
  // RelaxedServiceNameValidation (beta, on by default in v1.36): a Service's name is a DNS-1123
  // label, which may start with a digit, no longer a DNS-1035 one.
  validateObjectMeta(object, report, findDns1123LabelErrors);
  validateTopologyAnnotations(object, report);
  const v = view(object);
  const { spec, type } = v;

  // Ports of the wrong type are the structural checker's.
  const noPorts = !isSet(spec.ports) || asArray(spec.ports)?.length === 0;
  if (noPorts && !v.headless && type !== "ExternalName") report({ type: "Required", path: PORTS });
  validateTypeFields(v, report);

  const names = new Set<string>();
  for (const [i, port] of v.ports) validateServicePort(port, v.ports.length > 1, names, PORTS.index(i), report);

  const selector = asObject(spec.selector);
  if (selector) {
    for (const [key, label] of Object.entries(selector)) {
      const keyPath = SPEC.child("selector").key(key);
      reportInvalid(report, keyPath, key, findQualifiedNameErrors(key), true);
      if (typeof label === "string") reportInvalid(report, keyPath, label, findLabelValueErrors(label));
    }
  }

  // sessionAffinityConfig under `None` is dropped by the defaults (a Warning says so); under
  // `ClientIP` the defaults fill a missing timeout, so only its range is left to check.
  if (spec.sessionAffinity === "ClientIP") {
    const timeout = asInteger(asObject(asObject(spec.sessionAffinityConfig)?.clientIP)?.timeoutSeconds);
    if (timeout !== undefined && (timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS))
      report({
        type: "Invalid",
        path: SPEC.child("sessionAffinityConfig").child("clientIP").child("timeoutSeconds"),
        value: timeout,
        detail: `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`,
      });
  }

  validateClusterIPsRelatedFields(v, report);

  (asArray(spec.externalIPs) ?? []).forEach((ip, i) => {
    if (typeof ip !== "string") return;
    const path = SPEC.child("externalIPs").index(i);
    if (isIP(ip) === 0) report({ type: "Invalid", path, value: ip, detail: IP_MSG });
    else reportInvalid(report, path, ip, findSpecialIPErrors(ip));
  });

  if (type === "ClusterIP") {
    for (const [i, port] of v.ports)
      if (nodePortOf(port) !== 0)
        report({
          type: "Forbidden",
          path: PORTS.index(i).child("nodePort"),
          detail: "may not be used when `type` is 'ClusterIP'",
        });
  }
  validateUniquePorts(v, report);
  validateSourceRanges(object, v, report);

  if (isSet(spec.allocateLoadBalancerNodePorts) && type !== "LoadBalancer")
    report({ type: "Forbidden", path: SPEC.child("allocateLoadBalancerNodePorts"), detail: LB_ONLY });
  const lbClass = asString(spec.loadBalancerClass);
  if (isSet(spec.loadBalancerClass)) {
    if (type !== "LoadBalancer") report({ type: "Forbidden", path: SPEC.child("loadBalancerClass"), detail: LB_ONLY });
    else if (lbClass !== undefined)
      reportInvalid(report, SPEC.child("loadBalancerClass"), lbClass, findQualifiedNameErrors(lbClass));
  }
  validateExternalTrafficPolicy(v, report);
  const distribution = asString(spec.trafficDistribution);
  if (distribution !== undefined && !TRAFFIC_DISTRIBUTIONS.includes(distribution))
    report({
      type: "Unsupported",
      path: SPEC.child("trafficDistribution"),
      value: distribution,
      supported: TRAFFIC_DISTRIBUTIONS,
    });
}

function validateTopologyAnnotations(object: RawObject, report: Reporter): void {
  const annotations = asObject(asObject(object.metadata)?.annotations) ?? {};
  const mode = annotations[TOPOLOGY_MODE_ANNOTATION];
  const hints = annotations[TOPOLOGY_HINTS_ANNOTATION];
  if (typeof mode === "string" && typeof hints === "string" && mode !== hints)
    report({
      type: "Invalid",
      path: FieldPath.root().child("metadata").child("annotations").key(TOPOLOGY_MODE_ANNOTATION),
      value: mode,
      detail: `must match annotations[${TOPOLOGY_HINTS_ANNOTATION}] when both are specified`,
    });
}

/** The switch on `type` at the top of ValidateService. */
function validateTypeFields(v: ServiceView, report: Reporter): void {
  const { spec, type } = v;
  const noneFor = (kind: string) =>
    report({
      type: "Invalid",
      path: SPEC.child("clusterIPs").index(0),
      value: "None",
      detail: `may not be set to 'None' for ${kind} services`,
    });
  if (type === "LoadBalancer") {
    for (const [i, port] of v.ports)
      if (port.port === KUBELET_PORT)
        report({
          type: "Invalid",
          path: PORTS.index(i),
          value: KUBELET_PORT,
          detail: `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`,
        });
    if (v.headless) noneFor("LoadBalancer");
  } else if (type === "NodePort") {
    if (v.headless) noneFor("NodePort");
  } else if (type === "ExternalName") {
    const forbidden = (field: string) =>
      report({ type: "Forbidden", path: SPEC.child(field), detail: "may not be set for ExternalName services" });
    if (v.clusterIPs.length > 0) forbidden("clusterIPs");
    if ((asArray(spec.ipFamilies)?.length ?? 0) > 0) forbidden("ipFamilies");
    if (isSet(spec.ipFamilyPolicy)) forbidden("ipFamilyPolicy");
    // The name (a CNAME) may end in a dot, as a fully qualified name does.
    const cname = (asString(spec.externalName) ?? "").replace(/\.$/, "");
    if (cname === "") report({ type: "Required", path: SPEC.child("externalName") });
    else reportInvalid(report, SPEC.child("externalName"), cname, findDns1123SubdomainErrors(cname));
  }
}

function validateServicePort(
  port: RawObject,
  requireName: boolean,
  names: Set<string>,
  path: FieldPath,
  report: Reporter,
): void {
  const name = asString(port.name) ?? "";
  if (requireName && name === "") report({ type: "Required", path: path.child("name") });
  else if (name !== "") {
    reportInvalid(report, path.child("name"), name, findDns1123LabelErrors(name));
    if (names.has(name)) report({ type: "Duplicate", path: path.child("name"), value: name });
    else names.add(name);
  }
  // An absent port is the structural checker's Required.
  const number = asInteger(port.port);
  if (number !== undefined) reportInvalid(report, path.child("port"), number, findPortNumberErrors(number));
  // ValidatePortNumOrName, after the defaults turned 0 and "" into the port.
  const target = port.targetPort;
  if (typeof target === "number" && Number.isInteger(target) && target !== 0)
    reportInvalid(report, path.child("targetPort"), target, findPortNumberErrors(target));
  else if (typeof target === "string" && target !== "")
    reportInvalid(report, path.child("targetPort"), target, findPortNameErrors(target));
  const appProtocol = asString(port.appProtocol);
  if (appProtocol !== undefined)
    reportInvalid(report, path.child("appProtocol"), appProtocol, findQualifiedNameErrors(appProtocol));
}

/**
 * Ports unique by (protocol, port) and node ports by (protocol, nodePort), as ValidateService
 * checks them; then the node ports as the allocator takes them (initNodePorts): in the range, and
 * one Service's ports of one port number share one node port, while two port numbers may not.
 */
function validateUniquePorts(v: ServiceView, report: Reporter): void {
  const nodePorts = new Set<string>();
  for (const [i, port] of v.ports) {
    const nodePort = nodePortOf(port);
    if (nodePort === 0) continue;
    const key = `${protocolOf(port)}/${nodePort}`;
    if (nodePorts.has(key)) report({ type: "Duplicate", path: PORTS.index(i).child("nodePort"), value: nodePort });
    nodePorts.add(key);
  }
  const ports = new Set<string>();
  for (const [i, port] of v.ports) {
    const number = asInteger(port.port);
    if (number === undefined) continue;
    const key = `${protocolOf(port)}/${number}`;
    // Go prints the key struct; its two fields are what tells the ports apart.
    if (ports.has(key))
      report({ type: "Duplicate", path: PORTS.index(i), value: { protocol: protocolOf(port), port: number } });
    ports.add(key);
  }
  if (!hasNodePorts(v.type)) return;
  const claimedBy = new Map<number, { port: unknown; protocol: string }>();
  for (const [i, port] of v.ports) {
    const nodePort = nodePortOf(port);
    if (nodePort === 0) continue;
    const path = PORTS.index(i).child("nodePort");
    if (nodePort < SERVICE_NODE_PORT_RANGE.min || nodePort > SERVICE_NODE_PORT_RANGE.max) {
      report({ type: "Invalid", path, value: nodePort, detail: NOT_IN_RANGE });
      continue;
    }
    const claim = claimedBy.get(nodePort);
    // The same protocol twice is the Duplicate above.
    if (claim && claim.port !== port.port && claim.protocol !== protocolOf(port))
      report({ type: "Invalid", path, value: nodePort, detail: ALLOCATED });
    if (!claim) claimedBy.set(nodePort, { port: port.port, protocol: protocolOf(port) });
  }
}

/** ValidateServiceClusterIPsRelatedFields, and the IP family policy checks of initIPFamilyFields. */
function validateClusterIPsRelatedFields(v: ServiceView, report: Reporter): void {
  const { spec, clusterIPs } = v;
  if (v.type === "ExternalName") return;
  const clusterIPsPath = SPEC.child("clusterIPs");
  const clusterIP = asString(spec.clusterIP) ?? "";
  if (clusterIP !== "") {
    if (clusterIPs[0] !== clusterIP)
      report({
        type: "Invalid",
        path: clusterIPsPath,
        value: clusterIPs,
        detail: "first value must match `clusterIP`",
      });
  } else if (clusterIPs.length > 0) {
    report({
      type: "Invalid",
      path: clusterIPsPath,
      value: clusterIPs,
      detail: "must be empty when `clusterIP` is not specified",
    });
  }

  const families = validateIPFamilies(spec, report);

  let invalid = false;
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (clusterIPs.length > 1) {
        invalid = true;
        report({
          type: "Invalid",
          path: clusterIPsPath,
          value: clusterIPs,
          detail: "'None' must be the first and only value",
        });
      }
      return;
    }
    if (isIP(ip) === 0) {
      invalid = true;
      report({ type: "Invalid", path: clusterIPsPath.index(i), value: ip, detail: IP_MSG });
    }
  });
  if (clusterIPs.length > 2)
    report({ type: "Invalid", path: clusterIPsPath, value: clusterIPs, detail: "may only hold up to 2 values" });
  if (invalid) return;
  if (clusterIPs.length > 1 && new Set(clusterIPs.map((ip) => isIP(ip))).size !== clusterIPs.length)
    report({
      type: "Invalid",
      path: clusterIPsPath,
      value: clusterIPs,
      detail: "may specify no more than one IP for each IP family",
    });
  if (!v.headless) {
    clusterIPs.slice(0, families.length).forEach((ip, i) => {
      const want = families[i] === "IPv4" ? 4 : families[i] === "IPv6" ? 6 : isIP(ip);
      if (isIP(ip) !== want)
        report({
          type: "Invalid",
          path: clusterIPsPath.index(i),
          value: ip,
          detail: `expected an IPv${want} value as indicated by \`ipFamilies[${i}]\``,
        });
    });
  }
  // An unset policy is SingleStack on create, but for a headless Service without a selector.
  if (spec.ipFamilyPolicy === "SingleStack") {
    const policyPath = SPEC.child("ipFamilyPolicy");
    const dual = "must be 'RequireDualStack' or 'PreferDualStack' when multiple";
    if (clusterIPs.length === 2)
      report({ type: "Invalid", path: policyPath, value: "SingleStack", detail: `${dual} cluster IPs are specified` });
    if (families.length === 2)
      report({ type: "Invalid", path: policyPath, value: "SingleStack", detail: `${dual} IP families are specified` });
  }
}

/** The ipFamilies as written, each checked: not empty, not twice. */
function validateIPFamilies(spec: RawObject, report: Reporter): string[] {
  const families = (asArray(spec.ipFamilies) ?? []).filter((f): f is string => typeof f === "string");
  const seen = new Set<string>();
  families.forEach((family, i) => {
    const path = SPEC.child("ipFamilies").index(i);
    // The schema's enum admits "", which the server does not.
    if (family === "") report({ type: "Unsupported", path, value: family, supported: ["IPv4", "IPv6"] });
    if (seen.has(family)) report({ type: "Duplicate", path, value: family });
    seen.add(family);
  });
  return families;
}

// ValidateNonSpecialIP: addresses no Service can be published on.
const SPECIAL_RANGES: [string, string, number, number][] = [
  // [address, family, prefix, index of the message below]
  ["0.0.0.0", "ipv4", 32, 0],
  ["::", "ipv6", 128, 0],
  ["127.0.0.0", "ipv4", 8, 1],
  ["::1", "ipv6", 128, 1],
  ["169.254.0.0", "ipv4", 16, 2],
  ["fe80::", "ipv6", 10, 2],
  ["224.0.0.0", "ipv4", 24, 3],
  ["ff02::", "ipv6", 16, 3],
];
const SPECIAL_MESSAGES = [
  (ip: string) => `may not be unspecified (${ip})`,
  () => "may not be in the loopback range (127.0.0.0/8, ::1/128)",
  () => "may not be in the link-local range (169.254.0.0/16, fe80::/10)",
  () => "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)",
];

function findSpecialIPErrors(ip: string): string[] {
  const family = isIP(ip) === 4 ? "ipv4" : "ipv6";
  return SPECIAL_MESSAGES.flatMap((message, index) => {
    const list = new BlockList();
    for (const [address, type, prefix, at] of SPECIAL_RANGES)
      if (at === index && type === family) list.addSubnet(address, prefix, type);
    return list.check(ip, family) ? [message(ip)] : [];
  });
}

/** apimachinery's IsValidCIDR as the service fields use it: an address, a slash, a prefix length. */
function isCIDR(value: string): boolean {
  const slash = value.indexOf("/");
  if (slash < 0) return false;
  const family = isIP(value.slice(0, slash));
  const prefix = value.slice(slash + 1);
  return family !== 0 && /^[0-9]+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

function validateSourceRanges(object: RawObject, v: ServiceView, report: Reporter): void {
  const ranges = asArray(v.spec.loadBalancerSourceRanges) ?? [];
  if (ranges.length > 0) {
    // The server names the field `spec.LoadBalancerSourceRanges`; it is spelled as written here,
    // so that the line and column point at it.
    const path = SPEC.child("loadBalancerSourceRanges");
    if (v.type !== "LoadBalancer") report({ type: "Forbidden", path, detail: LB_ONLY });
    ranges.forEach((range, i) => {
      // Space-padded values are allowed, for the annotation's sake.
      if (typeof range === "string" && !isCIDR(range.trim()))
        report({ type: "Invalid", path: path.index(i), value: range.trim(), detail: CIDR_MSG });
    });
    return;
  }
  const annotation = asObject(asObject(object.metadata)?.annotations)?.[SOURCE_RANGES_ANNOTATION];
  if (typeof annotation !== "string") return;
  const path = FieldPath.root().child("metadata").child("annotations").key(SOURCE_RANGES_ANNOTATION);
  if (v.type !== "LoadBalancer") report({ type: "Forbidden", path, detail: LB_ONLY });
  if (annotation.trim() === "") return;
  for (const range of annotation.trim().split(",")) {
    if (!isCIDR(range.trim())) report({ type: "Invalid", path, value: range.trim(), detail: CIDR_MSG });
  }
}

/** validateServiceExternalTrafficPolicy, and the health check node port's allocation. */
function validateExternalTrafficPolicy(v: ServiceView, report: Reporter): void {
  const { spec } = v;
  const policy = asString(spec.externalTrafficPolicy) ?? "";
  if (!externallyAccessible(v) && policy !== "")
    report({
      type: "Invalid",
      path: SPEC.child("externalTrafficPolicy"),
      value: policy,
      detail: "may only be set for externally-accessible services",
    });
  const healthCheck = asInteger(spec.healthCheckNodePort) ?? 0;
  const path = SPEC.child("healthCheckNodePort");
  if (!needsHealthCheck(v)) {
    if (healthCheck !== 0)
      report({
        type: "Invalid",
        path,
        value: healthCheck,
        detail: "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
      });
  } else if (healthCheck !== 0) {
    // The allocator reserves it in the node port range before validation sees it.
    if (healthCheck < SERVICE_NODE_PORT_RANGE.min || healthCheck > SERVICE_NODE_PORT_RANGE.max)
      report({ type: "Invalid", path, value: healthCheck, detail: NOT_IN_RANGE });
  }
}

/** One Service of the set given to one command, with the reporter of its own file and place. */
export interface ServiceInSet {
  value: unknown;
  report: Reporter;
}

/**
 * The node ports of all the Services of the set, as one API server's allocator holds them: one
 * range for every protocol, so a node port taken by one Service is refused to every other
 * ("provided port is already allocated"), at the second, naming the first. Valid Services only.
 */
export function validateServiceSet(services: readonly ServiceInSet[]): void {
  const owners = new Map<number, string>();
  for (const { value, report } of services) {
    const object = asObject(value);
    if (!object) continue;
    const v = view(object);
    if (!hasNodePorts(v.type)) continue;
    const own = serviceKeyOf(object);
    const mine = new Set<number>();
    for (const [i, port] of v.ports) {
      const nodePort = nodePortOf(port);
      if (nodePort === 0 || mine.has(nodePort)) continue;
      mine.add(nodePort);
      const owner = owners.get(nodePort);
      if (owner === undefined) owners.set(nodePort, own);
      else
        report({
          type: "Invalid",
          path: PORTS.index(i).child("nodePort"),
          value: nodePort,
          detail: `${ALLOCATED} (to Service ${owner})`,
        });
    }
  }
}

/** `namespace/name` of a Service object. */
export function serviceKeyOf(value: unknown): string {
  const meta = asObject(asObject(value)?.metadata);
  return `${asString(meta?.namespace) || DEFAULT_NAMESPACE}/${asString(meta?.name) ?? ""}`;
}

/**
 * SetDefaults_Service and NormalizeClusterIPs, on a valid Service: what a cluster stores (without
 * the addresses and node ports its allocators add). Returns a new object.
 */
export function defaultService(input: Record<string, unknown>): Service {
  const service = structuredClone(input) as Service;
  service.metadata = { ...service.metadata, namespace: service.metadata?.namespace || DEFAULT_NAMESPACE };
  const spec = (service.spec ??= {});
  spec.type ||= "ClusterIP";
  spec.sessionAffinity ||= "None";
  if (spec.sessionAffinity === "None") delete spec.sessionAffinityConfig;
  else if (spec.sessionAffinity === "ClientIP" && spec.sessionAffinityConfig?.clientIP?.timeoutSeconds === undefined)
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS } };
  for (const port of spec.ports ?? []) {
    port.protocol ||= "TCP";
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === "") port.targetPort = port.port;
  }
  const accessible = hasNodePorts(spec.type) || (spec.type === "ClusterIP" && (spec.externalIPs?.length ?? 0) > 0);
  if (accessible) spec.externalTrafficPolicy ||= "Cluster";
  if (spec.type !== "ExternalName") spec.internalTrafficPolicy ??= "Cluster";
  if (spec.type === "LoadBalancer") spec.allocateLoadBalancerNodePorts ??= true;
  if (spec.clusterIP && !spec.clusterIPs?.length) spec.clusterIPs = [spec.clusterIP];
  return service;
}

/**
 * What podrun does not do with a valid Service, one Warning each. podrun is one node with one
 * IPv4 network of its own: the Service gets an address there, its node ports and load balancer
 * port are published on this machine, and connections are relayed to the endpoint pods.
 */
export function findServiceWarnings(value: unknown, report: Reporter): void {
  const object = asObject(value);
  if (!object) return;
  const v = view(object);
  const { spec, type } = v;
  const warn = (path: FieldPath, detail: string) => report({ type: "Forbidden", path, detail });
  for (const [i, port] of v.ports)
    if (port.protocol === "SCTP")
      warn(PORTS.index(i).child("protocol"), "podrun relays TCP and UDP; SCTP ports are not forwarded");
  if (type !== "ExternalName" && v.clusterIPs.length > 0 && !v.headless)
    warn(
      SPEC.child(isSet(spec.clusterIP) ? "clusterIP" : "clusterIPs"),
      "podrun gives the Service an address on its own network: the fixed clusterIP is not used",
    );
  if ((asArray(spec.externalIPs)?.length ?? 0) > 0)
    warn(SPEC.child("externalIPs"), "podrun binds no external IPs: the Service is reached by its name and nodePorts");
  if (isSet(spec.loadBalancerIP))
    warn(SPEC.child("loadBalancerIP"), "podrun publishes a LoadBalancer on this machine: loadBalancerIP is not used");
  if ((asArray(spec.loadBalancerSourceRanges)?.length ?? 0) > 0)
    warn(
      SPEC.child("loadBalancerSourceRanges"),
      "podrun does not filter clients by address: the ranges are not enforced",
    );
  if (isSet(spec.loadBalancerClass))
    warn(SPEC.child("loadBalancerClass"), "podrun publishes every LoadBalancer itself: loadBalancerClass is not used");
  for (const field of ["externalTrafficPolicy", "internalTrafficPolicy"])
    if (spec[field] === "Local")
      warn(
        SPEC.child(field),
        "podrun is one node, where every endpoint is local: traffic goes to all of them, as with Cluster",
      );
  if (isSet(spec.healthCheckNodePort))
    warn(SPEC.child("healthCheckNodePort"), "podrun serves no health check node port: it is not used");
  if (isSet(spec.trafficDistribution))
    warn(
      SPEC.child("trafficDistribution"),
      "podrun is one node: traffic goes to every endpoint, trafficDistribution changes nothing",
    );
  if (
    (asArray(spec.ipFamilies) ?? []).includes("IPv6") ||
    spec.ipFamilyPolicy === "RequireDualStack" ||
    spec.ipFamilyPolicy === "PreferDualStack"
  )
    warn(
      SPEC.child(isSet(spec.ipFamilies) ? "ipFamilies" : "ipFamilyPolicy"),
      "podrun's network is IPv4 only: the Service gets an IPv4 address",
    );
  if (type === "LoadBalancer" && spec.allocateLoadBalancerNodePorts === false)
    warn(
      SPEC.child("allocateLoadBalancerNodePorts"),
      "not honoured by podrun: the LoadBalancer gets node ports as when it is true",
    );
  if (spec.sessionAffinity !== "ClientIP" && isSet(spec.sessionAffinityConfig))
    warn(SPEC.child("sessionAffinityConfig"), "dropped, as the API server drops it: sessionAffinity is not ClientIP");
  // A cluster's DNS answers an ExternalName with a CNAME, whatever port the client then uses; the
  // engines' DNS holds none, so podrun relays the ports the Service lists to the name, and no other.
  if (type === "ExternalName" && v.ports.length === 0)
    warn(
      SPEC.child("ports"),
      "an ExternalName Service without ports relays nothing with podrun (the engines' DNS has no CNAME record): clients reach nothing through its name. List the ports its clients use (valid on a cluster too) and podrun relays each of them to the external name",
    );
  // `selector: {}` is stored as no selector (an empty map does not survive the API server's storage).
  if (type !== "ExternalName" && Object.keys(asObject(spec.selector) ?? {}).length === 0)
    warn(
      isSet(spec.selector) ? SPEC.child("selector") : SPEC,
      "a Service without a selector has no endpoints: podrun makes no Endpoints objects, so its name resolves and connections are refused",
    );
}
