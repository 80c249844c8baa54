import { execa } from "execa";
import { fileURLToPath } from "node:url";
import t from "tap";
import { missing } from "../harness/engine.js";

// The Service proxy's own Go tests (images/service-proxy/*_test.go: config, affinity, listeners
// that follow the endpoints, the TCP and UDP relays, reloads), on 127.0.0.1 only, as part of the
// suite. Go is what scripts/test-env.sh installs to build the image; without it the test says so
// (and fails under CI=true, as every missing piece of the test environment does). Then those of
// the end-to-end tests' UDP server (images/test-udp-responder: its DNS answers).

for (const image of ["service-proxy", "test-udp-responder"]) {
  const dir = fileURLToPath(new URL(`../../images/${image}/`, import.meta.url));
  t.test(`go vet and go test of images/${image}`, async (t) => {
    t.setTimeout(240_000);
    const go = await execa("go", ["version"], { reject: false });
    if (go.exitCode !== 0) return void missing(t, "go (scripts/test-env.sh installs golang-go)");
    const env = { CGO_ENABLED: "0", GOFLAGS: "-mod=mod", GOPROXY: "off" };
    const vet = await execa("go", ["vet", "./..."], { cwd: dir, env, reject: false, all: true });
    t.equal(vet.exitCode, 0, `go vet: ${vet.all}`);
    const test = await execa("go", ["test", "-count=1", "./..."], { cwd: dir, env, reject: false, all: true });
    t.equal(test.exitCode, 0, `go test: ${test.all}`);
  });
}
