import { parseImageReference } from "../../runtime/image-reference.js";
import { FieldPath } from "../field-path.js";
import { reportInvalid, type PodContext } from "./context.js";
import { validateEnv, validateEnvFrom } from "./env.js";
import { validateVolumeMounts } from "./mounts.js";
import { findDns1123LabelErrors } from "./names.js";
import { checkHostPortConflicts, collectPortNames, validateContainerPorts } from "./ports.js";
import { validateProbesAndHooks } from "./probes.js";
import { validateContainerResources } from "./resources.js";
import { asArray, asObject, asString, isBlank, isSet, listObjectItems, type RawObject } from "./raw.js";

// validateContainers and validateInitContainers, with the checks common to both.

const specPath = FieldPath.root().child("spec");

export function validateContainers(ctx: PodContext, spec: RawObject, hostNetwork: boolean): void {
  const path = specPath.child("containers");
  if (!isSet(spec.containers) || asArray(spec.containers)?.length === 0) ctx.report({ type: "Required", path });
  const names = new Set<string>();
  const containers = listObjectItems(spec.containers).map(
    ([i, container]) => [container, path.index(i)] as [RawObject, FieldPath],
  );
  for (const [container, containerPath] of containers) {
    validateContainerCommon(ctx, container, containerPath);
    const name = asString(container.name);
    if (name && names.has(name)) ctx.report({ type: "Duplicate", path: containerPath.child("name"), value: name });
    if (name) names.add(name);
    validateProbesAndHooks(ctx, container, containerPath, collectPortNames(container));
    validateRestartRules(ctx, container, containerPath);
  }
  checkHostPortConflicts(ctx.report, containers, hostNetwork);
}

export function validateInitContainers(ctx: PodContext, spec: RawObject, hostNetwork: boolean): void {
  const path = specPath.child("initContainers");
  // Names are unique across init and app containers; a clash is reported on the init container.
  const names = new Set(listObjectItems(spec.containers).flatMap(([, container]) => asString(container.name) ?? []));
  for (const [i, container] of listObjectItems(spec.initContainers)) {
    const containerPath = path.index(i);
    validateContainerCommon(ctx, container, containerPath);
    const restartPolicy = asString(container.restartPolicy);
    validateRestartRules(ctx, container, containerPath);
    const name = asString(container.name);
    if (name && names.has(name)) ctx.report({ type: "Duplicate", path: containerPath.child("name"), value: name });
    else if (name) names.add(name);
    checkHostPortConflicts(ctx.report, [[container, containerPath]], hostNetwork);

    // A sidecar (restartPolicy: Always) runs beside the app and may have probes and hooks;
    // a plain init container runs to completion and may not.
    if (restartPolicy === "Always") {
      validateProbesAndHooks(ctx, container, containerPath, collectPortNames(container));
      continue;
    }
    for (const field of ["lifecycle", "livenessProbe", "readinessProbe", "startupProbe"] as const) {
      if (isSet(container[field])) {
        ctx.report({
          type: "Forbidden",
          path: containerPath.child(field),
          detail: "may not be set for init containers without restartPolicy=Always",
        });
      }
    }
  }
}

function validateContainerCommon(ctx: PodContext, container: RawObject, path: FieldPath): void {
  const name = asString(container.name);
  if (isBlank(container.name)) ctx.report({ type: "Required", path: path.child("name") });
  else if (name !== undefined) reportInvalid(ctx.report, path.child("name"), name, findDns1123LabelErrors(name));
  checkImage(ctx, container, path.child("image"));
  validateContainerPorts(ctx.report, container, path);
  validateEnv(ctx, container, path);
  validateEnvFrom(ctx, container, path);
  validateVolumeMounts(ctx, container, path);
  validateContainerResources(ctx.report, container, path);
}

function checkImage(ctx: PodContext, container: RawObject, path: FieldPath): void {
  const image = asString(container.image);
  if (isBlank(container.image)) {
    ctx.report({ type: "Required", path });
    return;
  }
  if (image === undefined) return;
  if (image.trim() !== image) {
    ctx.report({ type: "Invalid", path, value: image, detail: "must not have leading or trailing whitespace" });
    return;
  }
  // The API server stores any other string; the kubelet then fails the container with
  // InvalidImageName: a kubelet's error (a Warning at `validate`, refused by `up`).
  const parsed = parseImageReference(image);
  if (!parsed.ok)
    ctx.report({ type: "Invalid", path, value: image, detail: parsed.reason, kubelet: "InvalidImageName" });
}

const CONTAINER_RESTART_POLICIES = ["Always", "OnFailure", "Never"];
const RESTART_ACTIONS = ["Restart", "RestartAllContainers"];
const EXIT_CODE_OPERATORS = ["In", "NotIn"];
const MAX_EXIT_CODES = 255;

/**
 * A container's own `restartPolicy` and `restartPolicyRules`: beyond a sidecar's `Always`, the
 * ContainerRestartRules gate (beta, on by default since v1.35) takes `OnFailure` and `Never` on
 * any container, and rules that restart it on some exit codes; RestartAllContainersOnContainerExits
 * (beta, on in v1.36) adds the `RestartAllContainers` action. A container with rules states its
 * own policy, and every rule names its exit codes.
 */
function validateRestartRules(ctx: PodContext, container: RawObject, path: FieldPath): void {
  const policy = asString(container.restartPolicy);
  if (policy !== undefined && !CONTAINER_RESTART_POLICIES.includes(policy)) {
    const supported = CONTAINER_RESTART_POLICIES;
    ctx.report({ type: "Unsupported", path: path.child("restartPolicy"), value: policy, supported });
  }
  const rules = listObjectItems(container.restartPolicyRules);
  if (rules.length > 0 && !isSet(container.restartPolicy))
    ctx.report({ type: "Required", path: path.child("restartPolicy"), detail: "must be set with restartPolicyRules" });
  for (const [i, rule] of rules) {
    const rulePath = path.child("restartPolicyRules").index(i);
    const action = asString(rule.action);
    if (action !== undefined && !RESTART_ACTIONS.includes(action))
      ctx.report({ type: "Unsupported", path: rulePath.child("action"), value: action, supported: RESTART_ACTIONS });
    const exitCodes = asObject(rule.exitCodes);
    if (!isSet(rule.exitCodes)) {
      ctx.report({ type: "Required", path: rulePath.child("exitCodes") });
      continue;
    }
    const operator = asString(exitCodes?.operator);
    const codesPath = rulePath.child("exitCodes");
    if (operator !== undefined && !EXIT_CODE_OPERATORS.includes(operator)) {
      const supported = EXIT_CODE_OPERATORS;
      ctx.report({ type: "Unsupported", path: codesPath.child("operator"), value: operator, supported });
    }
    const values = asArray(exitCodes?.values) ?? [];
    if (values.length > MAX_EXIT_CODES) {
      const detail = `must have at most ${MAX_EXIT_CODES} items`;
      ctx.report({ type: "TooLong", path: codesPath.child("values"), detail });
    }
    const seen = new Set<unknown>();
    values.forEach((value, j) => {
      if (seen.has(value)) ctx.report({ type: "Duplicate", path: codesPath.child("values").index(j), value });
      seen.add(value);
    });
  }
}
