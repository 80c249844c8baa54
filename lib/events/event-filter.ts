import type { ScannedLine } from "./line-scan.js";

// The filters of `podrun events` (--pod, --namespace, --type, --reason). They are all fields of
// the fold key, so filtering events before folding gives the same rows as filtering rows after,
// and skips the work for the rest. (--since is about a row's last time, so it applies to rows.)

export interface EventFilterOptions {
  pod?: string;
  namespace?: string;
  type?: string;
  reason?: string;
}

export interface EventFilter {
  /**
   * A cheap necessary condition on the raw line, to skip JSON.parse for lines that cannot match:
   * every wanted value must appear in it as a JSON string. Lines are written by JSON.stringify,
   * which writes these values (names, reasons) the same way every time.
   */
  mayMatchLine(line: string): boolean;
  matches(line: ScannedLine): boolean;
}

export function createEventFilter(options: EventFilterOptions): EventFilter {
  // Scanned lines hold strings as JSON writes them: compare with the values written that way.
  const [pod, namespace, type, reason] = [options.pod, options.namespace, options.type, options.reason].map((value) =>
    value === undefined ? undefined : JSON.stringify(value).slice(1, -1),
  );
  const wanted = [pod, namespace, type, reason].filter((value): value is string => value !== undefined).map((value) => `"${value}"`);
  return {
    mayMatchLine: (line) => wanted.every((needle) => line.includes(needle)),
    matches: (line) =>
      (pod === undefined || line.objectName === pod) &&
      (namespace === undefined || line.namespace === namespace) &&
      (type === undefined || line.type === type) &&
      (reason === undefined || line.reason === reason),
  };
}
