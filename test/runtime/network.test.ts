// The cluster network's pure parts: how it is made (its subnet), how `network ls` is read, and
// which failures are the network's (another run's doing) rather than the container's.
import t from "tap";
import { EngineError } from "../../lib/errors.js";
import { buildNetworkCreateArgs } from "../../lib/runtime/create-args.js";
import { DIALECTS } from "../../lib/runtime/dialects.js";
import {
  isNetworkUnusable,
  isSubnetTaken,
  parseNetworkInspect,
  parseNetworkList,
  subnetsOverlap,
} from "../../lib/runtime/network.js";
import { ContainerNotStartedError } from "../../lib/runtime/types.js";

t.test("network create: the subnet first, then the labels, then the name", async (t) => {
  t.same(buildNetworkCreateArgs("podrun", { "io.podrun.managed": "true" }, "10.244.0.0/16"), [
    "network",
    "create",
    "--subnet",
    "10.244.0.0/16",
    "--label",
    "io.podrun.managed=true",
    "podrun",
  ]);
  t.same(buildNetworkCreateArgs("podrun", {}), ["network", "create", "podrun"], "no subnet: the engine's pick");
});

t.test("cluster subnets: docker's own two; podman and nerdctl, which lock a network's name, pick theirs", async (t) => {
  t.same(DIALECTS.docker.clusterSubnets, ["10.244.0.0/16", "10.247.0.0/16"]);
  t.notOk(subnetsOverlap(DIALECTS.docker.clusterSubnets[0]!, DIALECTS.docker.clusterSubnets[1]!));
  t.same(DIALECTS.podman.clusterSubnets, []);
  t.same(DIALECTS.nerdctl.clusterSubnets, []);
});

t.test("subnetsOverlap: IPv4 CIDRs that share an address", async (t) => {
  const cases: [string, string, boolean][] = [
    ["10.244.0.0/16", "10.244.0.0/16", true],
    ["10.244.0.0/16", "10.244.7.0/24", true],
    ["10.244.7.0/24", "10.244.0.0/16", true],
    ["10.0.0.0/8", "10.244.0.0/16", true],
    ["10.244.0.0/16", "10.245.0.0/16", false],
    ["10.243.255.0/24", "10.244.0.0/16", false],
    ["0.0.0.0/0", "192.168.1.0/24", true],
    ["172.17.0.0/16", "172.18.0.0/16", false],
    ["fd00::/64", "10.244.0.0/16", false],
    ["10.244.0.0", "10.244.0.0/16", false],
    ["10.300.0.0/16", "10.244.0.0/16", false],
  ];
  for (const [a, b, overlap] of cases) t.equal(subnetsOverlap(a, b), overlap, `${a} ${b}`);
});

t.test("isSubnetTaken: docker's and podman's words for a subnet another network holds", async (t) => {
  t.ok(isSubnetTaken("Error response from daemon: Pool overlaps with other one on this address space\n"));
  t.ok(isSubnetTaken("Error: subnet 10.244.0.0/16 is already used on the host or by another config\n"));
  t.notOk(isSubnetTaken("Error response from daemon: network with name podrun already exists\n"));
});

t.test("network ls, ID<TAB>NAME a line: every network, twins of one name included", async (t) => {
  t.same(parseNetworkList("aaa\tpodrun\nbbb\tbridge\n\nccc\tpodrun\n  \n"), [
    { id: "aaa", name: "podrun" },
    { id: "bbb", name: "bridge" },
    { id: "ccc", name: "podrun" },
  ]);
});

t.test("network inspect, docker's and podman's forms: the oldest first, with subnets", async (t) => {
  const docker = JSON.stringify([
    {
      Name: "podrun",
      Id: "b",
      Created: "2026-12-02T07:00:01Z",
      Labels: {},
      IPAM: { Config: [{ Subnet: "10.244.0.0/16", Gateway: "10.244.0.1" }] },
    },
    { Name: "podrun", Id: "a", Created: "2026-12-02T07:00:00Z", Labels: null, IPAM: { Config: [] } },
  ]);
  t.same(
    parseNetworkInspect(DIALECTS.docker, docker).map((n) => [n.id, n.subnets]),
    [
      ["a", []],
      ["b", [{ subnet: "10.244.0.0/16", gateway: "10.244.0.1" }]],
    ],
  );
  const podman = JSON.stringify([
    {
      name: "podrun",
      id: "p",
      created: "2026-12-02T07:00:00Z",
      subnets: [{ subnet: "10.245.0.0/16", gateway: "10.245.0.1" }],
      dns_enabled: true,
    },
  ]);
  const [network] = parseNetworkInspect(DIALECTS.podman, podman);
  t.same(network?.subnets, [{ subnet: "10.245.0.0/16", gateway: "10.245.0.1" }]);
  t.equal(network?.dns, true);
});

t.test("isNetworkUnusable: the network gone, or its name held twice; not the container's failures", async (t) => {
  const cases: [EngineError, boolean][] = [
    [new EngineError("not-found", "network podrun not found"), true],
    [new EngineError("not-found", "unable to find network with name or ID podrun: network not found"), true],
    [new EngineError("conflict", "network podrun is ambiguous (2 matches found on name)"), true],
    [new EngineError("not-found", "No such image: busybox:9"), false],
    [new EngineError("conflict", 'Conflict. The container name "/default_web_POD" is already in use'), false],
    [new EngineError("failed", "network podrun not found"), false],
  ];
  for (const [error, unusable] of cases) t.equal(isNetworkUnusable(error), unusable, error.message);
  const notStarted = new ContainerNotStartedError("abc", new EngineError("not-found", "network podrun not found"));
  t.ok(isNetworkUnusable(notStarted), "a container made but not started: its start's failure");
  t.notOk(isNetworkUnusable(new Error("network podrun not found")), "only what the engine said");
});
