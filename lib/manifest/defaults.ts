import type { ConfigMap, Container, Pod, Probe, Secret, Volume } from "kubernetes-types/core/v1.js";
import { defaultPullPolicy } from "../runtime/image-reference.js";

// What the API server fills in on create (pkg/apis/core/v1/defaults.go), so that `podrun validate
// --json` shows what a cluster would store and later steps never guess a default of their own.
// Input is already validated; each function returns a new object and never mutates its input.

export const DEFAULT_NAMESPACE = "default";
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
/** `defaultMode` of configMap, secret and projected volumes: 0644. */
export const DEFAULT_VOLUME_MODE = 0o644;

export function defaultPod(input: Pod): Pod {
  const pod = structuredClone(input);
  pod.metadata = { ...pod.metadata, namespace: pod.metadata?.namespace || DEFAULT_NAMESPACE };
  const spec = pod.spec!;
  spec.restartPolicy ??= "Always";
  spec.dnsPolicy ??= "ClusterFirst";
  spec.terminationGracePeriodSeconds ??= DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  spec.schedulerName ??= "default-scheduler";
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    defaultContainer(container, spec.hostNetwork === true);
  }
  for (const volume of spec.volumes ?? []) defaultVolume(volume);
  return pod;
}

function defaultContainer(container: Container, hostNetwork: boolean): void {
  container.imagePullPolicy ??= defaultPullPolicy(container.image!);
  container.terminationMessagePath ??= "/dev/termination-log";
  container.terminationMessagePolicy ??= "File";
  // A null list item decodes to Go's zero value: `args: [null]` is stored as `args: [""]`.
  if (container.command) container.command = container.command.map((part) => part ?? "");
  if (container.args) container.args = container.args.map((part) => part ?? "");
  for (const port of container.ports ?? []) {
    port.protocol ??= "TCP";
    // With the host's network the container listens on the host: the port is the host port.
    if (hostNetwork && port.hostPort === undefined) port.hostPort = port.containerPort;
  }
  for (const env of container.env ?? []) {
    if (env.valueFrom?.fieldRef) env.valueFrom.fieldRef.apiVersion ??= "v1";
  }
  // A container that sets only limits gets the same requests, as the scheduler would assume.
  const resources = container.resources;
  if (resources?.limits) {
    resources.requests = { ...resources.limits, ...resources.requests };
  }
  for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
    if (probe) defaultProbe(probe);
  }
  for (const handler of [container.lifecycle?.postStart, container.lifecycle?.preStop]) {
    if (handler?.httpGet) {
      handler.httpGet.path ||= "/";
      handler.httpGet.scheme ??= "HTTP";
    }
  }
}

function defaultProbe(probe: Probe): void {
  probe.timeoutSeconds ??= 1;
  probe.periodSeconds ??= 10;
  probe.successThreshold ??= 1;
  probe.failureThreshold ??= 3;
  if (probe.httpGet) {
    probe.httpGet.path ||= "/";
    probe.httpGet.scheme ??= "HTTP";
  }
}

function defaultVolume(volume: Volume): void {
  if (volume.configMap) volume.configMap.defaultMode ??= DEFAULT_VOLUME_MODE;
  if (volume.secret) volume.secret.defaultMode ??= DEFAULT_VOLUME_MODE;
  if (volume.projected) volume.projected.defaultMode ??= DEFAULT_VOLUME_MODE;
  if (volume.hostPath) volume.hostPath.type ??= "";
  if (volume.downwardAPI) volume.downwardAPI.defaultMode ??= DEFAULT_VOLUME_MODE;
}

export function defaultConfigMap(input: ConfigMap): ConfigMap {
  const cm = structuredClone(input);
  cm.metadata = { ...cm.metadata, namespace: cm.metadata?.namespace || DEFAULT_NAMESPACE };
  return cm;
}

export function defaultSecret(input: Secret): Secret {
  const secret = structuredClone(input);
  secret.metadata = { ...secret.metadata, namespace: secret.metadata?.namespace || DEFAULT_NAMESPACE };
  secret.type ??= "Opaque";
  return secret;
}
