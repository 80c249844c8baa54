// The API server's rules for dnsConfig, hostAliases and shareProcessNamespace, through validatePod.
import t from "tap";
import { formatFieldError } from "../../lib/manifest/field-error.js";
import { buildObjectIndex, validatePod } from "../../lib/manifest/validate-objects.js";

const SUBDOMAIN_UNDERSCORE_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const IP_MSG = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

function podLines(spec: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { containers: [{ name: "app", image: "busybox:1.36" }], ...spec },
  };
  validatePod(pod, buildObjectIndex([]), (e) => lines.push(formatFieldError(e)));
  return lines;
}

const rows: [title: string, spec: Record<string, unknown>, expected: string[]][] = [
  [
    "a full valid set",
    {
      dnsPolicy: "None",
      dnsConfig: {
        nameservers: ["10.9.8.7", "fd00::53"],
        searches: ["ns1.svc.example", "example."],
        options: [{ name: "ndots", value: "2" }],
      },
      hostAliases: [{ ip: "10.1.2.3", hostnames: ["foo.local"] }],
      shareProcessNamespace: true,
    },
    [],
  ],
  [
    "None without dnsConfig",
    { dnsPolicy: "None" },
    ["spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"],
  ],
  [
    "None without nameservers",
    { dnsPolicy: "None", dnsConfig: { searches: ["example"] } },
    ["spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None"],
  ],
  ["Default needs no nameserver", { dnsPolicy: "Default", dnsConfig: { searches: ["example"] } }, []],
  [
    "too many nameservers",
    { dnsConfig: { nameservers: ["1.1.1.1", "1.1.1.2", "1.1.1.3", "1.1.1.4"] } },
    [
      'spec.dnsConfig.nameservers: Invalid value: ["1.1.1.1","1.1.1.2","1.1.1.3","1.1.1.4"]: must not have more than 3 nameservers',
    ],
  ],
  [
    "a nameserver that is no IP",
    { dnsConfig: { nameservers: ["dns.example"] } },
    [`spec.dnsConfig.nameservers[0]: Invalid value: "dns.example": ${IP_MSG}`],
  ],
  [
    "a search that is no subdomain (underscores and a lone dot are fine: RelaxedDNSSearchValidation)",
    { dnsConfig: { searches: ["Bad_Domain", "_sip._tcp.example.com", ".", "-x"] } },
    [
      `spec.dnsConfig.searches[0]: Invalid value: "Bad_Domain": ${SUBDOMAIN_UNDERSCORE_MSG}`,
      `spec.dnsConfig.searches[3]: Invalid value: "-x": ${SUBDOMAIN_UNDERSCORE_MSG}`,
    ],
  ],
  [
    "an option without a name",
    { dnsConfig: { options: [{ value: "2" }] } },
    ["spec.dnsConfig.options[0]: Required value: must not be empty"],
  ],
  [
    "a host alias with a bad IP and name",
    { hostAliases: [{ ip: "10.1.2", hostnames: ["ok.local", "No Way"] }] },
    [
      `spec.hostAliases[0].ip: Invalid value: "10.1.2": ${IP_MSG}`,
      `spec.hostAliases[0].hostnames[1]: Invalid value: "No Way": ${SUBDOMAIN_MSG}`,
    ],
  ],
  [
    "shareProcessNamespace with hostPID",
    { shareProcessNamespace: true, hostPID: true },
    [
      "spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled",
    ],
  ],
];

t.test("dnsConfig, hostAliases, shareProcessNamespace: the API server's rules", async (t) => {
  for (const [title, spec, expected] of rows) t.same(podLines(spec), expected, title);
  // A long value is cut in the message, as apimachinery cuts it.
  const searches = podLines({ dnsConfig: { searches: Array.from({ length: 33 }, (_, i) => `s${i}`) } });
  t.equal(searches.length, 1);
  t.match(
    searches[0],
    /^spec\.dnsConfig\.searches: Invalid value: \["s0",.*: must not have more than 32 search paths$/,
  );
  const long = podLines({ dnsConfig: { searches: Array.from({ length: 9 }, () => "a".repeat(230)) } });
  t.match(long, [/must not have more than 2048 characters \(including spaces\) in the search list$/]);
});
