import { DOCKER_CONFIG_JSON_TYPE, DOCKERCFG_TYPE } from "../../credentials/docker-config.js";
import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS } from "../defaults.js";
import { reportInvalid, toObjectKey, type PodContext } from "./context.js";
import { findDns1123LabelErrors, findDns1123SubdomainErrors, formatRangeError } from "./names.js";
import { validatePodDns } from "./pod-dns.js";
import { validatePodResources } from "./pod-resources.js";
import { validatePodSysctls } from "./pod-sysctls.js";
import { validateTolerations } from "./tolerations.js";
import { checkHostNetworkPorts } from "./ports.js";
import { asArray, asInteger, asObject, asString, isBlank, listObjectItems, type RawObject } from "./raw.js";
import { checkObjectRef } from "./references.js";

// The pod-level fields of ValidatePodSpec and ValidatePodCreate that a local run depends on.

const specPath = FieldPath.root().child("spec");
const MAX_INT32 = 2 ** 31 - 1;

/** spec.terminationGracePeriodSeconds as defaulted, after checking it. */
export function checkGracePeriod(spec: RawObject, report: Reporter): number {
  const value = asInteger(spec.terminationGracePeriodSeconds);
  if (value === undefined) return DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  // A cluster takes a negative value and uses 1 second; podrun asks for a meaningful one.
  if (value < 0) {
    report({
      type: "Invalid",
      path: specPath.child("terminationGracePeriodSeconds"),
      value,
      detail: "must be greater than or equal to 0",
    });
    return DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  }
  return value;
}

export function validatePodFields(ctx: PodContext, spec: RawObject): void {
  const deadline = asInteger(spec.activeDeadlineSeconds);
  if (deadline !== undefined && (deadline < 1 || deadline > MAX_INT32)) {
    ctx.report({
      type: "Invalid",
      path: specPath.child("activeDeadlineSeconds"),
      value: deadline,
      detail: formatRangeError(1, MAX_INT32),
    });
  }
  for (const field of ["hostname", "subdomain"] as const) {
    const value = asString(spec[field]);
    if (value) reportInvalid(ctx.report, specPath.child(field), value, findDns1123LabelErrors(value));
  }
  checkHostnameOverride(ctx.report, spec);
  if (spec.hostNetwork === true) {
    const containers = listObjectItems(spec.containers).map(
      ([i, c]) => [c, specPath.child("containers").index(i)] as [RawObject, FieldPath],
    );
    checkHostNetworkPorts(ctx.report, containers);
  }
  // Ephemeral containers are added to a running pod through its subresource, never on create.
  if ((asArray(spec.ephemeralContainers)?.length ?? 0) > 0) {
    ctx.report({ type: "Forbidden", path: specPath.child("ephemeralContainers"), detail: "cannot be set on create" });
  }
  checkPullSecrets(ctx, spec);
  validatePodDns(ctx.report, spec);
  validatePodSysctls(ctx.report, spec);
  validateTolerations(ctx.report, spec);
  checkSeLinuxChangePolicy(ctx.report, spec);
  validatePodResources(ctx.report, spec);
}

/**
 * A cluster only warns (FailedToRetrieveImagePullSecret) about a missing pull secret; podrun
 * has nowhere else to find one, and there is no `optional` to say it may be absent. The kubelet
 * silently skips a pull secret of another type (an Opaque Secret holding `.dockerconfigjson` is
 * the usual slip) and the pull then fails for want of credentials: podrun says so first.
 */
function checkPullSecrets(ctx: PodContext, spec: RawObject): void {
  for (const [i, ref] of listObjectItems(spec.imagePullSecrets)) {
    const namePath = specPath.child("imagePullSecrets").index(i).child("name");
    const name = asString(ref.name);
    if (isBlank(ref.name)) ctx.report({ type: "Required", path: namePath });
    else if (name !== undefined) {
      const reason = "FailedToRetrieveImagePullSecret";
      checkObjectRef(ctx, { kind: "Secret", name, namePath, optional: false, reason, canBeOptional: false });
      checkPullSecretType(ctx, name, namePath);
    }
  }
}

const PULL_SECRET_TYPES = [DOCKER_CONFIG_JSON_TYPE, DOCKERCFG_TYPE];

function checkPullSecretType(ctx: PodContext, name: string, namePath: FieldPath): void {
  if (ctx.index.partial) return;
  const key = toObjectKey(ctx.namespace, name);
  const type = ctx.index.secretTypes?.get(key);
  if (type === undefined || PULL_SECRET_TYPES.includes(type)) return;
  const place = ctx.index.places?.get(`Secret:${key}`);
  const secret = place === undefined ? `Secret "${name}"` : `Secret "${name}" (${place})`;
  const detail = `${secret} is of type "${type}": a pull reads only ${PULL_SECRET_TYPES.join(" and ")} secrets`;
  ctx.report({ type: "Invalid", path: namePath, value: name, detail, kubelet: "ErrImagePull" });
}

/**
 * seLinuxChangePolicy: `MountOption` needs the SELinuxMount gate, beta and off by default in
 * v1.36 (pkg/apis/core/validation's AllowOnlyRecursiveSELinuxChangePolicy): only `Recursive` is
 * taken. Another value is outside the schema's enum, and reported there.
 */
function checkSeLinuxChangePolicy(report: Reporter, spec: RawObject): void {
  const policy = asString(asObject(spec.securityContext)?.seLinuxChangePolicy);
  if (policy !== "MountOption") return;
  const path = specPath.child("securityContext").child("seLinuxChangePolicy");
  report({ type: "Unsupported", path, value: policy, supported: ["Recursive"] });
}

/**
 * spec.hostnameOverride (HostnameOverride, beta and on by default since v1.35): a DNS subdomain of
 * at most 64 characters, which neither setHostnameAsFQDN nor hostNetwork may go with.
 */
function checkHostnameOverride(report: Reporter, spec: RawObject): void {
  const value = asString(spec.hostnameOverride);
  if (!value) return;
  const path = specPath.child("hostnameOverride");
  const errors = findDns1123SubdomainErrors(value);
  if (value.length > MAX_HOSTNAME_OVERRIDE) errors.push(`must be no more than ${MAX_HOSTNAME_OVERRIDE} characters`);
  reportInvalid(report, path, value, errors);
  for (const field of ["setHostnameAsFQDN", "hostNetwork"] as const)
    if (spec[field] === true)
      report({
        type: "Invalid",
        path: specPath.child(field),
        value: true,
        detail: `cannot be set with hostnameOverride`,
      });
}

const MAX_HOSTNAME_OVERRIDE = 64;
