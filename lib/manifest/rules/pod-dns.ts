import { isIP } from "node:net";
import { FieldPath } from "../field-path.js";
import type { Reporter } from "../field-error.js";
import { findDns1123SubdomainErrors, findDns1123SubdomainWithUnderscoreErrors } from "./names.js";
import { asArray, asObject, asString, listObjectItems, type RawObject } from "./raw.js";

// The API server's rules for what goes into a pod's /etc/hosts and /etc/resolv.conf:
// validatePodDNSConfig and ValidateHostAliases in pkg/apis/core/validation/validation.go, with the
// limits of libc's resolver it states (MaxDNSNameservers, MaxDNSSearchPaths, MaxDNSSearchListChars).

const MAX_DNS_NAMESERVERS = 3;
const MAX_DNS_SEARCH_PATHS = 32;
const MAX_DNS_SEARCH_LIST_CHARS = 2048;
const IP_MSG = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

const specPath = FieldPath.root().child("spec");

/** spec.dnsConfig (against spec.dnsPolicy as written), spec.hostAliases, shareProcessNamespace with hostPID. */
export function validatePodDns(report: Reporter, spec: RawObject): void {
  validateDnsConfig(report, spec);
  validateHostAliases(report, spec);
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    // The internal API keeps both under the pod's security context: that is the path it reports.
    const path = specPath.child("securityContext").child("shareProcessNamespace");
    report({ type: "Invalid", path, value: true, detail: "ShareProcessNamespace and HostPID cannot both be enabled" });
  }
}

function validateDnsConfig(report: Reporter, spec: RawObject): void {
  const path = specPath.child("dnsConfig");
  const config = asObject(spec.dnsConfig);
  if (spec.dnsPolicy === "None") {
    if (!config) return report({ type: "Required", path, detail: "must provide `dnsConfig` when `dnsPolicy` is None" });
    if ((asArray(config.nameservers)?.length ?? 0) === 0) {
      return report({
        type: "Required",
        path: path.child("nameservers"),
        detail: "must provide at least one DNS nameserver when `dnsPolicy` is None",
      });
    }
  }
  if (!config) return;
  const nameservers = (asArray(config.nameservers) ?? []).map((value) => asString(value) ?? "");
  if (nameservers.length > MAX_DNS_NAMESERVERS) {
    report({
      type: "Invalid",
      path: path.child("nameservers"),
      value: nameservers,
      detail: `must not have more than ${MAX_DNS_NAMESERVERS} nameservers`,
    });
  }
  nameservers.forEach((server, i) => {
    if (isIP(server) === 0)
      report({ type: "Invalid", path: path.child("nameservers").index(i), value: server, detail: IP_MSG });
  });
  const searches = (asArray(config.searches) ?? []).map((value) => asString(value) ?? "");
  if (searches.length > MAX_DNS_SEARCH_PATHS) {
    report({
      type: "Invalid",
      path: path.child("searches"),
      value: searches,
      detail: `must not have more than ${MAX_DNS_SEARCH_PATHS} search paths`,
    });
  }
  if (searches.join(" ").length > MAX_DNS_SEARCH_LIST_CHARS) {
    report({
      type: "Invalid",
      path: path.child("searches"),
      value: searches,
      detail: `must not have more than ${MAX_DNS_SEARCH_LIST_CHARS} characters (including spaces) in the search list`,
    });
  }
  searches.forEach((search, i) => {
    // RelaxedDNSSearchValidation (GA, locked on since v1.34): a lone "." (the root), and
    // underscores, as in an SRV name. A trailing dot is fine (a fully qualified name).
    if (search === ".") return;
    const name = search.endsWith(".") ? search.slice(0, -1) : search;
    for (const detail of findDns1123SubdomainWithUnderscoreErrors(name))
      report({ type: "Invalid", path: path.child("searches").index(i), value: name, detail });
  });
  for (const [i, option] of listObjectItems(config.options)) {
    if (!asString(option.name))
      report({ type: "Required", path: path.child("options").index(i), detail: "must not be empty" });
  }
}

function validateHostAliases(report: Reporter, spec: RawObject): void {
  for (const [i, alias] of listObjectItems(spec.hostAliases)) {
    const path = specPath.child("hostAliases").index(i);
    const ip = asString(alias.ip) ?? "";
    if (isIP(ip) === 0) report({ type: "Invalid", path: path.child("ip"), value: ip, detail: IP_MSG });
    (asArray(alias.hostnames) ?? []).forEach((value, j) => {
      const hostname = asString(value) ?? "";
      for (const detail of findDns1123SubdomainErrors(hostname))
        report({ type: "Invalid", path: path.child("hostnames").index(j), value: hostname, detail });
    });
  }
}
