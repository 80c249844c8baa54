// The pod's resolv.conf, from the kubelet's own tables (pkg/kubelet/network/dns/dns_test.go
// TestParseResolvConf, TestFormDNSSearchFitsLimits, TestFormDNSNameserversFitsLimits,
// TestMergeDNSOptions, TestGetPodDNSCustom), with its limits as of v1.34 (32 search paths, 2048 characters).
import t from "tap";
import {
  buildPodDns,
  fitNameservers,
  fitSearches,
  formatResolvConf,
  mergeDnsOptions,
  parseResolvConf,
  planPodDns,
  type DnsConfig,
} from "../../../lib/pod/etc/pod-dns.js";

t.test("parseResolvConf", async (t) => {
  // [data, nameservers, searches, options]; the kubelet refuses a `nameserver` line without an address, podrun skips it.
  const cases: [string, string[], string[], string[]][] = [
    ["", [], [], []],
    [" ", [], [], []],
    ["\n", [], [], []],
    ["\t\n\t", [], [], []],
    ["#comment\n", [], [], []],
    [" #comment\n", [], [], []],
    ["#comment\n#comment", [], [], []],
    ["#comment\nnameserver", [], [], []],
    ["#comment\nnameserver\nsearch", [], [], []],
    ["#comment\nnameserver 1.2.3.4\nsearch", ["1.2.3.4"], [], []],
    ["nameserver 1.2.3.4", ["1.2.3.4"], [], []],
    [" nameserver 1.2.3.4", ["1.2.3.4"], [], []],
    ["\tnameserver 1.2.3.4", ["1.2.3.4"], [], []],
    ["nameserver\t1.2.3.4", ["1.2.3.4"], [], []],
    ["nameserver \t 1.2.3.4", ["1.2.3.4"], [], []],
    ["nameserver 1.2.3.4\nnameserver 5.6.7.8", ["1.2.3.4", "5.6.7.8"], [], []],
    ["nameserver 1.2.3.4 #comment", ["1.2.3.4"], [], []],
    ["search ", [], [], []],
    ["search foo", [], ["foo"], []],
    ["search foo bar", [], ["foo", "bar"], []],
    ["search foo. bar", [], ["foo", "bar"], []],
    ["search foo bar bat\n", [], ["foo", "bar", "bat"], []],
    ["search foo\nsearch bar", [], ["bar"], []],
    ["nameserver 1.2.3.4\nsearch foo bar", ["1.2.3.4"], ["foo", "bar"], []],
    ["nameserver 1.2.3.4\nsearch foo\nnameserver 5.6.7.8\nsearch bar", ["1.2.3.4", "5.6.7.8"], ["bar"], []],
    ["#comment\nnameserver 1.2.3.4\n#comment\nsearch foo\ncomment", ["1.2.3.4"], ["foo"], []],
    ["options ", [], [], []],
    ["options ndots:5 attempts:2", [], [], ["ndots:5", "attempts:2"]],
    ["options ndots:1\noptions ndots:5 attempts:3", [], [], ["ndots:5", "attempts:3"]],
    [
      "nameserver 1.2.3.4\nsearch foo\nnameserver 5.6.7.8\nsearch bar\noptions ndots:5 attempts:4",
      ["1.2.3.4", "5.6.7.8"],
      ["bar"],
      ["ndots:5", "attempts:4"],
    ],
  ];
  for (const [data, servers, searches, options] of cases)
    t.same(parseResolvConf(data), { servers, searches, options }, JSON.stringify(data));
});

t.test("formDNSSearchFitsLimits", async (t) => {
  const list2048 = ["A".repeat(128), ...Array.from({ length: 15 }, () => "A".repeat(127))];
  t.equal(list2048.join(" ").length, 2048);
  const numbered = (n: number) => [
    "testNS.svc.TEST",
    "svc.TEST",
    "TEST",
    ...Array.from({ length: n - 3 }, (_, i) => String(i + 4)),
  ];
  const cases: [string, string[], string[], boolean][] = [
    ["valid: 3 search paths", ["testNS.svc.TEST", "svc.TEST", "TEST"], ["testNS.svc.TEST", "svc.TEST", "TEST"], false],
    [
      "valid: 5 search paths",
      ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "BBB"],
      ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "BBB"],
      false,
    ],
    [
      "invalid: a search path longer than 253 characters",
      ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "B".repeat(256), "BBB"],
      ["testNS.svc.TEST", "svc.TEST", "TEST", "AAA", "BBB"],
      true,
    ],
    ["valid: 2048 characters in the search list", list2048, list2048, false],
    ["invalid: 2050 characters in the search list", [...list2048, "B"], list2048, true],
    ["valid: 32 search paths", numbered(32), numbered(32), false],
    ["invalid: 33 search paths", numbered(33), numbered(32), true],
  ];
  for (const [desc, input, expected, event] of cases) {
    const events: string[] = [];
    t.same(
      fitSearches(input, (message) => events.push(message)),
      expected,
      desc,
    );
    t.same(
      events,
      event
        ? [
            `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${expected.join(" ")}`,
          ]
        : [],
      `${desc}: event`,
    );
  }
});

t.test("formDNSNameserversFitsLimits", async (t) => {
  const cases: [string, string[], string[], boolean][] = [
    ["valid: 1 nameserver", ["127.0.0.1"], ["127.0.0.1"], false],
    ["valid: 3 nameservers", ["127.0.0.1", "10.0.0.10", "8.8.8.8"], ["127.0.0.1", "10.0.0.10", "8.8.8.8"], false],
    [
      "invalid: 4 nameservers, trimmed to 3",
      ["127.0.0.1", "10.0.0.10", "8.8.8.8", "1.2.3.4"],
      ["127.0.0.1", "10.0.0.10", "8.8.8.8"],
      true,
    ],
  ];
  for (const [desc, input, expected, event] of cases) {
    const events: string[] = [];
    t.same(
      fitNameservers(input, (message) => events.push(message)),
      expected,
      desc,
    );
    t.same(
      events,
      event
        ? [
            "Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 127.0.0.1 10.0.0.10 8.8.8.8",
          ]
        : [],
      `${desc}: event`,
    );
  }
});

t.test("mergeDNSOptions: the pod's over the base's of the same name, in the order first seen", async (t) => {
  t.same(mergeDnsOptions(["ndots:5", "debug"], []), ["ndots:5", "debug"], "empty dnsConfig options");
  t.same(
    mergeDnsOptions(["ndots:5", "debug"], [{ name: "single-request" }, { name: "attempts", value: "3" }]),
    ["ndots:5", "debug", "single-request", "attempts:3"],
    "no duplicates",
  );
  t.same(
    mergeDnsOptions(
      ["ndots:5", "debug"],
      [{ name: "ndots", value: "3" }, { name: "debug" }, { name: "single-request" }, { name: "attempts", value: "3" }],
    ),
    ["ndots:3", "debug", "single-request", "attempts:3"],
    "duplicates overwritten",
  );
  t.same(
    mergeDnsOptions(["edns0", "ndots:5"], [{ name: "ndots", value: "" }]),
    ["edns0", "ndots"],
    "an empty value writes the name alone",
  );
});

t.test(
  "GetPodDNS with a dnsConfig (TestGetPodDNSCustom, without a cluster DNS server: ClusterFirst falls back to Default)",
  async (t) => {
    const host = "nameserver 8.8.8.8\nsearch host.domain\n";
    const config = {
      nameservers: ["10.0.0.11"],
      searches: ["my.domain"],
      options: [{ name: "ndots", value: "3" }, { name: "debug" }],
    };
    t.same(
      buildPodDns({ policy: "None" }, host),
      { servers: [], searches: [], options: [] },
      "None without dnsConfig: empty",
    );
    t.same(
      buildPodDns(
        {
          policy: "None",
          nameservers: ["203.0.113.1"],
          searches: ["my.domain", "second.domain"],
          options: [{ name: "ndots", value: "3" }, { name: "debug" }],
        },
        host,
      ),
      { servers: ["203.0.113.1"], searches: ["my.domain", "second.domain"], options: ["ndots:3", "debug"] },
      "None: dnsConfig alone",
    );
    for (const dnsPolicy of ["Default", "ClusterFirst", "ClusterFirstWithHostNet", undefined]) {
      const plan = planPodDns({ dnsPolicy, dnsConfig: config })!;
      t.same(
        buildPodDns(plan, host),
        { servers: ["8.8.8.8", "10.0.0.11"], searches: ["host.domain", "my.domain"], options: ["ndots:3", "debug"] },
        `${dnsPolicy}: merged into the host's`,
      );
    }
    t.same(
      buildPodDns(
        {
          policy: "Default",
          nameservers: ["8.8.8.8", "1.1.1.1"],
          searches: ["host.domain"],
          options: [{ name: "ndots", value: "2" }],
        },
        "nameserver 8.8.8.8\nsearch host.domain\noptions ndots:5 edns0\n",
      ),
      { servers: ["8.8.8.8", "1.1.1.1"], searches: ["host.domain"], options: ["ndots:2", "edns0"] },
      "duplicates dropped; ndots overridden in place",
    );
    const events: string[] = [];
    const many = buildPodDns(
      { policy: "Default", nameservers: ["10.0.0.1", "10.0.0.2", "10.0.0.3"] },
      host,
      (message) => events.push(message),
    );
    t.same(many.servers, ["8.8.8.8", "10.0.0.1", "10.0.0.2"], "the host's first, cut to 3");
    t.equal(events.length, 1, "DNSConfigForming said once");
  },
);

t.test("planPodDns: a plan only for None or a dnsConfig that says something", async (t) => {
  t.equal(planPodDns({}), undefined);
  t.equal(planPodDns({ dnsPolicy: "ClusterFirst", dnsConfig: {} }), undefined);
  t.equal(planPodDns({ dnsPolicy: "Default", dnsConfig: { options: [] } }), undefined);
  t.same(planPodDns({ dnsPolicy: "None", dnsConfig: { nameservers: ["10.9.8.7"] } }), {
    policy: "None",
    nameservers: ["10.9.8.7"],
  });
  t.same(planPodDns({ dnsConfig: { options: [{ name: "ndots", value: "2" }, { name: "edns0" }] } }), {
    policy: "Default",
    options: [{ name: "ndots", value: "2" }, { name: "edns0" }],
  });
  t.same(
    planPodDns({ dnsPolicy: "ClusterFirst", dnsConfig: { searches: ["a"] } }),
    planPodDns({ dnsPolicy: "Default", dnsConfig: { searches: ["a"] } }),
    "ClusterFirst is Default here",
  );
});

t.test("the file as the runtimes write it: search, nameservers, options", async (t) => {
  t.equal(
    formatResolvConf({
      servers: ["10.9.8.7", "10.9.8.6"],
      searches: ["a.example", "example"],
      options: ["ndots:2", "edns0"],
    }),
    "search a.example example\nnameserver 10.9.8.7\nnameserver 10.9.8.6\noptions ndots:2 edns0\n",
  );
  t.equal(
    formatResolvConf({ servers: ["10.9.8.7"], searches: [], options: [] }),
    "nameserver 10.9.8.7\n",
    "no search or options line when there are none",
  );
});

t.test(
  "GetPodDNS on the cluster network (TestGetPodDNSCustom's ClusterFirst cases): the engine's DNS as the cluster's",
  async (t) => {
    const host = "nameserver 8.8.8.8\nsearch host.domain\noptions edns0\n";
    const cluster = { server: "127.0.0.11", namespace: "ci" };
    const config = { nameservers: ["10.0.0.11"], searches: ["my.domain"], options: [{ name: "ndots", value: "3" }] };
    const cases: [string, Parameters<typeof planPodDns>[0], DnsConfig][] = [
      [
        "ClusterFirst (the default): the cluster's server, its domains before the host's, ndots:5 alone",
        {},
        {
          servers: ["127.0.0.11"],
          searches: ["ci.svc.cluster.local", "svc.cluster.local", "cluster.local", "host.domain"],
          options: ["ndots:5"],
        },
      ],
      [
        "ClusterFirstWithHostNet off the host's network: the same",
        { dnsPolicy: "ClusterFirstWithHostNet" },
        {
          servers: ["127.0.0.11"],
          searches: ["ci.svc.cluster.local", "svc.cluster.local", "cluster.local", "host.domain"],
          options: ["ndots:5"],
        },
      ],
      [
        "ClusterFirst with a dnsConfig: appended, its options over ndots:5",
        { dnsPolicy: "ClusterFirst", dnsConfig: config },
        {
          servers: ["127.0.0.11", "10.0.0.11"],
          searches: ["ci.svc.cluster.local", "svc.cluster.local", "cluster.local", "host.domain", "my.domain"],
          options: ["ndots:3"],
        },
      ],
      [
        "Default on the cluster network: the host's file, written (the engine would give its own server)",
        { dnsPolicy: "Default" },
        { servers: ["8.8.8.8"], searches: ["host.domain"], options: ["edns0"] },
      ],
    ];
    for (const [name, spec, want] of cases) t.same(buildPodDns(planPodDns(spec, cluster)!, host), want, name);
    t.equal(planPodDns({ hostNetwork: true }, cluster), undefined, "a hostNetwork pod: the host's file, as before");
    t.same(
      planPodDns({}, { server: undefined, namespace: "ci" }),
      { policy: "Default" },
      "an engine without DNS on the network: ClusterFirst falls back to Default, written",
    );
    t.equal(planPodDns({}), undefined, "off the cluster network: the engine's copy of the host's file");
  },
);
