import type { FieldPath } from "../field-path.js";
import { reportInvalid, type PodContext } from "./context.js";
import { findHttpHeaderNameErrors, findPortNameErrors, findPortNumberErrors } from "./names.js";
import { asArray, asInteger, asObject, asString, isSet, listObjectItems, type RawObject } from "./raw.js";

// Probes and lifecycle hooks (validateProbe, validateHandler, validateLifecycle).

const PROBES = ["livenessProbe", "readinessProbe", "startupProbe"] as const;
const PROBE_HANDLERS = ["exec", "httpGet", "tcpSocket", "grpc"] as const;
const LIFECYCLE_HANDLERS = ["exec", "httpGet", "tcpSocket", "sleep"] as const;
type Handler = (typeof PROBE_HANDLERS)[number] | (typeof LIFECYCLE_HANDLERS)[number];

/** The container's probes and hooks; `ports` are its port names, which a handler may use. */
export function validateProbesAndHooks(
  ctx: PodContext,
  container: RawObject,
  containerPath: FieldPath,
  ports: ReadonlySet<string>,
): void {
  for (const kind of PROBES) {
    const probe = asObject(container[kind]);
    if (probe) checkProbe(ctx, probe, containerPath.child(kind), kind, ports);
  }
  const lifecycle = asObject(container.lifecycle);
  for (const hook of ["postStart", "preStop"] as const) {
    const handler = asObject(lifecycle?.[hook]);
    if (handler) checkHandler(ctx, handler, containerPath.child("lifecycle").child(hook), LIFECYCLE_HANDLERS, ports);
  }
}

function checkProbe(
  ctx: PodContext,
  probe: RawObject,
  path: FieldPath,
  kind: (typeof PROBES)[number],
  ports: ReadonlySet<string>,
): void {
  checkHandler(ctx, probe, path, PROBE_HANDLERS, ports);
  const initialDelay = asInteger(probe.initialDelaySeconds);
  if (initialDelay !== undefined && initialDelay < 0) {
    ctx.report({
      type: "Invalid",
      path: path.child("initialDelaySeconds"),
      value: initialDelay,
      detail: "must be greater than or equal to 0",
    });
  }
  // The API server defaults a 0 here (timeout 1, period 10, thresholds 1 and 3) and only refuses
  // negatives; podrun applies defaults to unset fields only, so it asks for 1 or more.
  for (const field of ["timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"] as const) {
    const value = asInteger(probe[field]);
    if (value !== undefined && value < 1)
      ctx.report({ type: "Invalid", path: path.child(field), value, detail: "must be greater than or equal to 1" });
  }
  const success = asInteger(probe.successThreshold);
  if (kind !== "readinessProbe" && success !== undefined && success > 1) {
    ctx.report({ type: "Invalid", path: path.child("successThreshold"), value: success, detail: "must be 1" });
  }
  const grace = asInteger(probe.terminationGracePeriodSeconds);
  if (kind === "readinessProbe" && isSet(probe.terminationGracePeriodSeconds)) {
    ctx.report({
      type: "Invalid",
      path: path.child("terminationGracePeriodSeconds"),
      value: probe.terminationGracePeriodSeconds,
      detail: "must not be set for readinessProbes",
    });
  } else if (grace !== undefined && grace <= 0) {
    ctx.report({
      type: "Invalid",
      path: path.child("terminationGracePeriodSeconds"),
      value: grace,
      detail: "must be greater than 0",
    });
  }
}

function checkHandler(
  ctx: PodContext,
  handler: RawObject,
  path: FieldPath,
  kinds: readonly Handler[],
  ports: ReadonlySet<string>,
): void {
  let count = 0;
  for (const kind of kinds) {
    if (!isSet(handler[kind])) continue;
    if (count > 0) {
      ctx.report({ type: "Forbidden", path: path.child(kind), detail: "may not specify more than 1 handler type" });
      continue;
    }
    count++;
    const action = asObject(handler[kind]);
    if (action) checkAction(ctx, kind, action, path.child(kind), ports);
  }
  if (count === 0) ctx.report({ type: "Required", path, detail: "must specify a handler type" });
}

function checkAction(
  ctx: PodContext,
  kind: Handler,
  action: RawObject,
  path: FieldPath,
  ports: ReadonlySet<string>,
): void {
  switch (kind) {
    case "exec":
      if (!isSet(action.command) || asArray(action.command)?.length === 0)
        ctx.report({ type: "Required", path: path.child("command") });
      return;
    case "httpGet":
      for (const [j, header] of listObjectItems(action.httpHeaders)) {
        const name = asString(header.name);
        if (name !== undefined)
          reportInvalid(
            ctx.report,
            path.child("httpHeaders").index(j).child("name"),
            name,
            findHttpHeaderNameErrors(name),
          );
      }
      checkHandlerPort(ctx, action.port, path.child("port"), ports);
      return;
    case "tcpSocket":
      checkHandlerPort(ctx, action.port, path.child("port"), ports);
      return;
    case "grpc":
      if (typeof action.port === "number")
        reportInvalid(ctx.report, path.child("port"), action.port, findPortNumberErrors(action.port));
      return;
    case "sleep": {
      const seconds = asInteger(action.seconds);
      if (seconds !== undefined && (seconds < 0 || seconds > ctx.gracePeriod)) {
        // The API server puts this on `sleep`, not `sleep.seconds`.
        const detail = `must be non-negative and less than terminationGracePeriodSeconds (${ctx.gracePeriod})`;
        ctx.report({ type: "Invalid", path, value: seconds, detail });
      }
      return;
    }
  }
}

/** A number, or the name of one of the container's ports (which the kubelet resolves at run time). */
function checkHandlerPort(ctx: PodContext, port: unknown, path: FieldPath, ports: ReadonlySet<string>): void {
  if (typeof port === "number") reportInvalid(ctx.report, path, port, findPortNumberErrors(port));
  if (typeof port !== "string") return;
  const errors = findPortNameErrors(port);
  reportInvalid(ctx.report, path, port, errors);
  // A cluster accepts an unknown name, then every probe fails; podrun says so up front.
  if (errors.length === 0 && !ports.has(port)) {
    ctx.report({ type: "NotFound", path, value: port, detail: "must be the name of one of the container's ports" });
  }
}
