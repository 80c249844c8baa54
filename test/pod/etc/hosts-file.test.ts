// The pod's /etc/hosts, from the kubelet's own tables (pkg/kubelet/kubelet_pods_test.go
// TestManagedHostsFileContent, TestNodeHostsFileContent).
import t from "tap";
import {
  hostsEntriesFromHostAliases,
  managedHostsFileContent,
  nodeHostsFileContent,
  planHostAliases,
  resolvePodHostDomain,
} from "../../../lib/pod/etc/hosts-file.js";

const LOCALHOST = `127.0.0.1\tlocalhost
::1\tlocalhost ip6-localhost ip6-loopback
fe00::0\tip6-localnet
fe00::0\tip6-mcastprefix
fe00::1\tip6-allnodes
fe00::2\tip6-allrouters
`;

t.test("managedHostsFileContent: the kubelet's table", async (t) => {
  const cases: {
    ips: string[];
    hostname: string;
    domain?: string;
    aliases: { ip: string; hostnames: string[] }[];
    expected: string;
  }[] = [
    {
      ips: ["123.45.67.89"],
      hostname: "podFoo",
      aliases: [],
      expected: `# Kubernetes-managed hosts file.\n${LOCALHOST}123.45.67.89\tpodFoo\n`,
    },
    {
      ips: ["203.0.113.1"],
      hostname: "podFoo",
      domain: "domainFoo",
      aliases: [],
      expected: `# Kubernetes-managed hosts file.\n${LOCALHOST}203.0.113.1\tpodFoo.domainFoo\tpodFoo\n`,
    },
    {
      ips: ["203.0.113.1"],
      hostname: "podFoo",
      domain: "domainFoo",
      aliases: [{ ip: "123.45.67.89", hostnames: ["foo", "bar", "baz"] }],
      expected: `# Kubernetes-managed hosts file.\n${LOCALHOST}203.0.113.1\tpodFoo.domainFoo\tpodFoo\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\tbaz\n`,
    },
    {
      ips: ["203.0.113.1"],
      hostname: "podFoo",
      domain: "domainFoo",
      aliases: [
        { ip: "123.45.67.89", hostnames: ["foo", "bar", "baz"] },
        { ip: "456.78.90.123", hostnames: ["park", "doo", "boo"] },
      ],
      expected: `# Kubernetes-managed hosts file.\n${LOCALHOST}203.0.113.1\tpodFoo.domainFoo\tpodFoo\n\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\tbaz\n456.78.90.123\tpark\tdoo\tboo\n`,
    },
    {
      ips: ["203.0.113.1", "fd00::6"],
      hostname: "podFoo",
      domain: "domainFoo",
      aliases: [],
      expected: `# Kubernetes-managed hosts file.\n${LOCALHOST}203.0.113.1\tpodFoo.domainFoo\tpodFoo\nfd00::6\tpodFoo.domainFoo\tpodFoo\n`,
    },
  ];
  for (const c of cases)
    t.equal(
      managedHostsFileContent(c.ips, c.hostname, c.domain, c.aliases),
      c.expected,
      `${c.ips.join(",")} ${c.domain ?? ""} ${c.aliases.length}`,
    );
  t.equal(
    managedHostsFileContent([], "podFoo", "domainFoo", []),
    `# Kubernetes-managed hosts file.\n${LOCALHOST}`,
    "no IP yet: no line of the pod's",
  );
});

t.test("nodeHostsFileContent: the host's file under the host-network header, then the aliases", async (t) => {
  const host1 = `# hosts file for testing.\n${LOCALHOST}123.45.67.89\tsome.domain\n`;
  const host2 = `# another hosts file for testing.\n${LOCALHOST}12.34.56.78\tanother.domain\n`;
  const header = "# Kubernetes-managed hosts file (host network).\n";
  t.equal(nodeHostsFileContent(host1, []), header + host1);
  t.equal(nodeHostsFileContent(host2, []), header + host2);
  t.equal(
    nodeHostsFileContent(host1, [{ ip: "123.45.67.89", hostnames: ["foo", "bar", "baz"] }]),
    `${header}${host1}\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\tbaz\n`,
  );
  t.equal(
    nodeHostsFileContent(host2, [
      { ip: "123.45.67.89", hostnames: ["foo", "bar", "baz"] },
      { ip: "456.78.90.123", hostnames: ["park", "doo", "boo"] },
    ]),
    `${header}${host2}\n# Entries added by HostAliases.\n123.45.67.89\tfoo\tbar\tbaz\n456.78.90.123\tpark\tdoo\tboo\n`,
  );
});

t.test("hostAliases as written: one line per IP, in order; an alias without names keeps its line", async (t) => {
  t.equal(hostsEntriesFromHostAliases([]), "");
  const aliases = planHostAliases([{ ip: "10.0.0.9" }, { ip: "10.1.2.3", hostnames: ["foo.local"] }]);
  t.same(aliases, [
    { ip: "10.0.0.9", hostnames: [] },
    { ip: "10.1.2.3", hostnames: ["foo.local"] },
  ]);
  t.equal(hostsEntriesFromHostAliases(aliases), "\n# Entries added by HostAliases.\n10.0.0.9\t\n10.1.2.3\tfoo.local\n");
  t.same(planHostAliases(undefined), []);
});

t.test("the pod's domain: <subdomain>.<namespace>.svc.cluster.local, none without a subdomain", async (t) => {
  t.equal(resolvePodHostDomain({ subdomain: "sub" }, "ci"), "sub.ci.svc.cluster.local");
  t.equal(resolvePodHostDomain({}, "ci"), undefined);
  t.equal(resolvePodHostDomain({ subdomain: "" }, "ci"), undefined);
});
