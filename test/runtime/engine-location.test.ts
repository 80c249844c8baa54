import t from "tap";
import {
  bridgeIsHere,
  diskOfEndpoint,
  firstAddress,
  locateEngine,
  placeOfEndpoint,
  type HostInterfaces,
} from "../../lib/runtime/engine-location.js";

// Where the engine is: what its endpoint says, and whether its network's bridge is one of this host's.

t.test("the endpoint alone", async (t) => {
  const cases: [string, string | undefined][] = [
    ["", undefined],
    ["unix:///var/run/docker.sock", undefined],
    ["unix:///run/user/1000/podman/podman.sock", undefined],
    ["unix:///Users/ana/.docker/run/docker.sock", "vm"],
    ["unix:///home/ana/.docker/desktop/docker.sock", "vm"],
    ["npipe:////./pipe/docker_engine", "vm"],
    ["unix:///Users/ana/.colima/default/docker.sock", "vm"],
    ["unix:///Users/ana/.rd/docker.sock", "vm"],
    ["unix:///Users/ana/.lima/docker/sock/docker.sock", "vm"],
    ["unix:///Users/ana/.orbstack/run/docker.sock", "vm"],
    ["unix:///var/folders/x/T/podman/podman-machine-default-api.sock", "vm"],
    ["ssh://core@127.0.0.1:53412/run/user/501/podman/podman.sock", "vm"],
    ["ssh://ci@build.example.com", "remote"],
    ["ssh://build", "remote"],
    ["tcp://10.0.0.5:2376", "remote"],
    ["tcp://[2001:db8::1]:2376", "remote"],
    ["tcp://127.0.0.1:2375", undefined],
    ["tcp://localhost:2375", undefined],
  ];
  for (const [endpoint, place] of cases) t.equal(placeOfEndpoint(endpoint)?.place, place, endpoint || "(default)");
});

const host = (interfaces: Record<string, string[]>): HostInterfaces => ({
  exists: (name) => name in interfaces,
  hasAddress: (address) => Object.values(interfaces).some((list) => list.includes(address)),
});

t.test("the bridge: its name here, carrying the gateway", async (t) => {
  const here = host({ lo: ["127.0.0.1"], docker0: ["172.17.0.1"], "br-1a2b3c4d5e6f": ["10.244.0.1"] });
  const rootful = { onDemand: false, rootless: false };
  const cases: [string, Parameters<typeof bridgeIsHere>[0], typeof rootful, boolean][] = [
    ["docker0 with its address", { network: "bridge", interfaceName: "docker0", gateway: "172.17.0.1" }, rootful, true],
    ["podrun's network", { network: "podrun", interfaceName: "br-1a2b3c4d5e6f", gateway: "10.244.0.1" }, rootful, true],
    // Another engine's docker0 (a dockerd in a namespace of its own): same name, another address.
    [
      "a docker0 of another engine",
      { network: "bridge", interfaceName: "docker0", gateway: "10.213.0.1" },
      rootful,
      false,
    ],
    [
      "a bridge not here",
      { network: "podrun", interfaceName: "br-ffffffffffff", gateway: "10.244.0.1" },
      rootful,
      false,
    ],
    ["no bridge named", { network: "bridge", gateway: "172.17.0.1" }, rootful, false],
    ["no gateway known: the name", { network: "bridge", interfaceName: "docker0" }, rootful, true],
    [
      "podman's bridge not made yet",
      { network: "podman", interfaceName: "podman0", gateway: "10.88.0.1" },
      { onDemand: true, rootless: false },
      true,
    ],
    [
      "rootless podman",
      { network: "podman", interfaceName: "podman0", gateway: "10.88.0.1" },
      { onDemand: true, rootless: true },
      false,
    ],
    [
      "rootless docker",
      { network: "bridge", interfaceName: "docker0", gateway: "172.17.0.1" },
      { onDemand: false, rootless: true },
      false,
    ],
  ];
  for (const [name, bridge, engine, want] of cases) t.equal(bridgeIsHere(bridge, here, engine), want, name);
});

t.test("the place: endpoint and bridge together", async (t) => {
  const here = host({ docker0: ["172.17.0.1"] });
  const engine = { onDemand: false, rootless: false };
  const local = { network: "bridge", interfaceName: "docker0", gateway: "172.17.0.1" };
  const away = { network: "bridge", interfaceName: "docker0", gateway: "10.213.0.1" };
  t.match(locateEngine("unix:///var/run/docker.sock", local, here, engine), {
    place: "local",
    podIPsRoutable: true,
    sharedDisk: true,
  });
  t.match(locateEngine("unix:///var/lib/x/docker.sock", away, here, engine), {
    place: "vm",
    podIPsRoutable: false,
    sharedDisk: true,
    reason: "network bridge's bridge docker0 (10.213.0.1) is not on this host",
  });
  t.match(locateEngine("unix:///Users/ana/.docker/run/docker.sock", away, here, engine), {
    place: "vm",
    reason: /Docker Desktop's socket; network bridge's bridge docker0 \(10\.213\.0\.1\) is not on this host$/,
  });
  // A podman service through a socket, its bridge not made here: not taken as here (it may run anywhere).
  const podmanBridge = { network: "podman", interfaceName: "podman0", gateway: "10.88.0.1" };
  const podman = { onDemand: true, rootless: false };
  t.match(locateEngine("", podmanBridge, here, podman), { place: "local", podIPsRoutable: true });
  t.match(locateEngine("unix:///run/x/podman.sock", podmanBridge, here, podman), {
    place: "vm",
    podIPsRoutable: false,
  });
  // Another host: its bridge is never judged (a bridge of the same name and address may be here).
  t.match(locateEngine("ssh://ci@build.example.com", local, here, engine), {
    place: "remote",
    podIPsRoutable: false,
    sharedDisk: false,
  });
});

t.test("a network made without a gateway: the first address of its subnet", async (t) => {
  t.equal(firstAddress("10.244.0.0/16"), "10.244.0.1");
  t.equal(firstAddress("10.89.3.0/24"), "10.89.3.1");
  t.equal(firstAddress("10.89.3.77/24"), "10.89.3.1");
  t.equal(firstAddress("fd00::/64"), undefined);
});

t.test("whether the engine sees this host's files, from its endpoint", async (t) => {
  const cases: [string, string, number | undefined, string][] = [
    ["", "linux", 0, "shared"],
    ["unix:///var/run/docker.sock", "linux", 0, "shared"],
    ["unix:///run/podman/podman.sock", "linux", 0, "shared"],
    ["unix:///run/user/1000/podman/podman.sock", "linux", 1000, "shared"],
    ["unix:///run/user/1000/docker.sock", "linux", 1000, "shared"],
    ["unix:///run/user/1000/docker.sock", "linux", 1001, "check"],
    ["unix:///home/me/.colima/default/docker.sock", "linux", 1000, "check"],
    ["unix:///var/lib/podrun-test/vm-docker/docker.sock", "linux", 0, "check"],
    ["tcp://127.0.0.1:2375", "linux", 0, "check"],
    ["ssh://core@127.0.0.1:2222", "linux", 0, "check"],
    ["ssh://me@build.example.com", "linux", 0, "unshared"],
    ["tcp://10.1.2.3:2376", "darwin", 501, "unshared"],
    ["", "darwin", 501, "check"],
    ["unix:///Users/me/.docker/run/docker.sock", "darwin", 501, "check"],
    ["npipe:////./pipe/docker_engine", "win32", undefined, "check"],
  ];
  for (const [endpoint, platform, uid, want] of cases)
    t.equal(diskOfEndpoint(endpoint, platform, uid), want, `${endpoint || "(default)"} on ${platform}`);
});
