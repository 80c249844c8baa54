import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCli } from "../harness/cli.js";

// `up` and `down` over several files and directories, at the level of arguments: what is read,
// and the usage errors, before any engine is asked (a dry run asks none).

const pod = (name: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n    - {name: app, image: busybox}\n`;
const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  A: b\n";

const dirs: string[] = [];
t.teardown(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function project(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-cli-files-"));
  dirs.push(dir);
  await mkdir(join(dir, "k8s"));
  await mkdir(join(dir, "empty"));
  await writeFile(join(dir, "k8s/1-cm.yaml"), cm);
  await writeFile(join(dir, "k8s/2-web.yaml"), pod("web"));
  await writeFile(join(dir, "k8s/3-db.yaml"), pod("db"));
  await writeFile(join(dir, "cm-only.yaml"), cm);
  return dir;
}

t.test("--help of up, validate and down: -f, -R and the examples", async (t) => {
  for (const command of ["up", "validate", "down"]) {
    const help = await runCli([command, "--help"]);
    t.equal(help.exitCode, 0);
    t.match(help.stdout, /-f, --filename <file>/, command);
    t.match(help.stdout, /-R, --recursive/, command);
  }
  t.match((await runCli(["up", "--help"])).stdout, /\$ podrun up cm\.yaml pod\.yaml/);
  t.match((await runCli(["down", "--help"])).stdout, /\$ podrun down k8s\//);
});

t.test("up --dry-run over a directory: every pod in file order, each under its own header", async (t) => {
  const dir = await project();
  for (const args of [["k8s"], ["-f", "k8s"], ["k8s/1-cm.yaml", "k8s/2-web.yaml", "-f", "k8s/3-db.yaml"]]) {
    const r = await runCli(["up", "--runtime", "docker", "--dry-run", ...args], { cwd: dir });
    t.equal(r.exitCode, 0, r.stderr);
    const headers = r.stdout.split("\n").filter((line) => line.startsWith("# pod/"));
    t.same(headers, ["# pod/web (k8s/2-web.yaml)", "# pod/db (k8s/3-db.yaml)"], args.join(" "));
    t.ok(r.stdout.indexOf("default_web_app") < r.stdout.indexOf("default_db_app"));
  }
});

t.test("up: usage and manifest errors, exit 2, before any engine is asked", async (t) => {
  const dir = await project();
  const none = await runCli(["up", "--runtime", "docker"], { cwd: dir });
  t.equal(none.exitCode, 2);
  t.equal(none.stderr, "error: no manifest given: name a FILE, a DIR, or - for standard input (or -f FILE, -k DIR)\n");
  const noPod = await runCli(["up", "--runtime", "docker", "--dry-run", "cm-only.yaml"], { cwd: dir });
  t.equal(noPod.exitCode, 2);
  t.equal(noPod.stderr, "error: cm-only.yaml: no Pod to run (the file holds only ConfigMaps or Secrets)\n");
  const twice = await runCli(["up", "--runtime", "docker", "--dry-run", "k8s", "cm-only.yaml"], { cwd: dir });
  t.equal(twice.exitCode, 2);
  t.equal(
    twice.stderr,
    'cm-only.yaml:4:9: metadata.name: Duplicate value: "app-config": ConfigMap "app-config" in namespace "default" is also defined at k8s/1-cm.yaml:4:9\n',
  );
  const empty = await runCli(["up", "--runtime", "docker", "--dry-run", "empty", "nothere.yaml"], { cwd: dir });
  t.equal(empty.exitCode, 2);
  t.equal(
    empty.stderr,
    "empty: no manifest in this directory (no *.yaml, *.yml, *.json file)\nnothere.yaml: cannot read: no such file\n",
  );
});

t.test("down: directories given as paths or with -f are manifests; errors before any engine is asked", async (t) => {
  const dir = await project();
  const none = await runCli(["down", "--runtime", "docker"], { cwd: dir });
  t.equal(none.exitCode, 2);
  t.equal(
    none.stderr,
    "error: nothing to bring down: give a manifest FILE or DIR, a POD name, -l SELECTOR, or --all\n",
  );
  const all = await runCli(["down", "--runtime", "docker", "--all", "-f", "k8s"], { cwd: dir });
  t.equal(all.exitCode, 2);
  t.match(all.stderr, "--all takes no FILE or POD argument");
  for (const args of [["empty/"], ["-f", "empty"]]) {
    const r = await runCli(["down", "--runtime", "docker", ...args], { cwd: dir });
    t.equal(r.exitCode, 2, args.join(" "));
    t.match(r.stderr, /^empty\/?: no manifest in this directory/, args.join(" "));
  }
  const noPod = await runCli(["down", "--runtime", "docker", "cm-only.yaml", "-f", "empty/../cm-only.yaml"], {
    cwd: dir,
  });
  t.equal(noPod.exitCode, 2);
  t.equal(
    noPod.stderr,
    "error: cm-only.yaml: no Pod in this file (only ConfigMaps or Secrets)\n",
    "the same file twice is read once",
  );
});
