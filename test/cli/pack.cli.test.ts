import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import t from "tap";
import { KUBERNETES_API_VERSION } from "../../lib/manifest/kubernetes-version.js";

// `npm pack` must give a package that installs and runs on its own, outside this checkout.
const root = fileURLToPath(new URL("../..", import.meta.url));

t.test("npm pack → npm install -g → podrun --version", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-pack-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // dist/ is built by `npm test` before the suite; --ignore-scripts keeps prepack from rebuilding
  // it while other test files run the CLI.
  await execa("npm", ["pack", "--ignore-scripts", "--pack-destination", dir], { cwd: root });
  const [tarball] = (await readdir(dir)).filter((f) => f.endsWith(".tgz"));
  t.ok(tarball, "npm pack wrote a tarball");
  const prefix = join(dir, "prefix");
  await execa("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", join(dir, tarball!)], {
    cwd: dir,
  });
  const { version } = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { version: string };
  const bin = join(prefix, "bin", "podrun");
  const ran = await execa(bin, ["--version"], { cwd: dir });
  t.equal(ran.stdout.trim(), `${version} (Kubernetes API ${KUBERNETES_API_VERSION})`);
  const validated = await execa(bin, ["validate", join(prefix, "lib/node_modules/podrun/examples/web-sidecar.yaml")], {
    cwd: dir,
    env: { NO_COLOR: "1" },
    reject: false,
  });
  t.equal(validated.exitCode, 0, validated.stderr);
  t.match(validated.stdout, /Pod web \(2 containers\): valid/);
});
