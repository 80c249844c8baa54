import { fieldText } from "./event-key.js";
import type { KubeEvent } from "./types.js";

// The filters of `podrun events` (--pod, --namespace, --type, --reason). They are all fields of
// the fold key, so filtering events before folding gives the same rows as filtering rows after,
// and skips the work for the rest. (--since is about a row's last time, so it applies to rows.)

export interface EventFilterOptions {
  pod?: string;
  /** Only the events of these pods (`namespace/name`): those `-l` selected on the engine. */
  pods?: ReadonlySet<string>;
  namespace?: string;
  type?: string;
  reason?: string;
}

export interface EventFilter {
  /** Whether any filter was asked for (else every event matches). */
  active: boolean;
  /**
   * A cheap necessary condition on the raw line, to skip parsing lines that cannot match: every
   * wanted value must appear in it as a JSON string. Lines are written by JSON.stringify, which
   * writes these values (names, reasons) the same way every time.
   */
  mayMatchLine: (line: string) => boolean;
  /**
   * Whether the event's row is wanted. Asked once per fold key (fold.ts), since every field it
   * looks at is part of the key; values are read as event-key.ts keys them (a missing namespace
   * is the event's own, then "default").
   */
  matches: (event: KubeEvent) => boolean;
}

export function createEventFilter(options: EventFilterOptions): EventFilter {
  const { pod, pods, namespace, type, reason } = options;
  const wanted = [pod, namespace, type, reason]
    .filter((value): value is string => value !== undefined)
    .map((value) => JSON.stringify(value));
  return {
    active: wanted.length > 0 || pods !== undefined,
    mayMatchLine: wanted.length === 0 ? () => true : (line) => wanted.every((needle) => line.includes(needle)),
    matches: (event) => {
      const object = event.involvedObject ?? {};
      return (
        (pod === undefined || fieldText(object.name) === pod) &&
        (pods === undefined ||
          ((fieldText(object.kind) || "Pod") === "Pod" &&
            pods.has(
              `${fieldText(object.namespace || event.metadata.namespace || "default")}/${fieldText(object.name)}`,
            ))) &&
        (namespace === undefined ||
          fieldText(object.namespace || event.metadata.namespace || "default") === namespace) &&
        (type === undefined || fieldText(event.type) === type) &&
        (reason === undefined || fieldText(event.reason) === reason)
      );
    },
  };
}
