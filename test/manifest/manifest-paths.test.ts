import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { expandManifestPaths, hasManifestExtension } from "../../lib/manifest/manifest-paths.js";
import { manifestRejectionLines } from "../harness/manifest-errors.js";

// FILE|DIR|- arguments into the files to read, as kubectl's -f expands them: real trees in a
// temporary directory.

const roots: string[] = [];
t.teardown(() => Promise.all(roots.map((root) => rm(root, { recursive: true, force: true }))));

async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "podrun-paths-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

t.test("a directory: its *.yaml, *.yml, *.json files, by name, not its subdirectories", async (t) => {
  const root = await tree({
    "k8s/b.yaml": "",
    "k8s/a.yml": "",
    "k8s/C.json": "",
    "k8s/.hidden.yaml": "",
    "k8s/notes.txt": "",
    "k8s/pod.YAML": "",
    "k8s/pod.yaml~": "",
    "k8s/sub/z.yaml": "",
  });
  const dir = join(root, "k8s");
  // Byte order, as Go sorts: upper case before lower case, the dot first.
  t.same(
    await expandManifestPaths([dir]),
    [".hidden.yaml", "C.json", "a.yml", "b.yaml"].map((f) => join(dir, f)),
  );
});

t.test("-R: subdirectories too, each where its name sorts (depth first)", async (t) => {
  const root = await tree({
    "k8s/b.yaml": "",
    "k8s/a/x.yaml": "",
    "k8s/a/deeper/y.json": "",
    "k8s/c/z.yml": "",
    "k8s/a.yaml": "",
  });
  const dir = join(root, "k8s");
  t.same(
    await expandManifestPaths([dir], { recursive: true }),
    ["a/deeper/y.json", "a/x.yaml", "a.yaml", "b.yaml", "c/z.yml"].map((f) => join(dir, f)),
  );
});

t.test("files named explicitly are read whatever their extension, in the order given", async (t) => {
  const root = await tree({ "pod.txt": "", "cm.yaml": "" });
  const files = [join(root, "pod.txt"), join(root, "cm.yaml"), "-"];
  t.same(await expandManifestPaths(files), files);
});

t.test("the same file named twice, or reached by name and through a directory or a link, is read once", async (t) => {
  const root = await tree({ "k8s/cm.yaml": "", "k8s/pod.yaml": "" });
  await symlink(join(root, "k8s/pod.yaml"), join(root, "link.yaml"));
  const dir = join(root, "k8s");
  t.same(await expandManifestPaths([join(dir, "pod.yaml"), dir, `${dir}/./cm.yaml`, join(root, "link.yaml")]), [
    join(dir, "pod.yaml"),
    join(dir, "cm.yaml"),
  ]);
});

t.test("a link to a file in a directory is read; a link to a directory is not followed", async (t) => {
  const root = await tree({ "real/pod.yaml": "", "other/cm.yaml": "" });
  await symlink(join(root, "real/pod.yaml"), join(root, "other/link.yaml"));
  await symlink(join(root, "real"), join(root, "other/linked-dir"));
  t.same(await expandManifestPaths([join(root, "other")], { recursive: true }), [
    join(root, "other/cm.yaml"),
    join(root, "other/link.yaml"),
  ]);
});

t.test("a path that does not exist is kept: reading it says so", async (t) => {
  t.same(await expandManifestPaths(["missing.yaml"]), ["missing.yaml"]);
});

t.test("errors: an empty directory, one whose manifests are below (-R), - twice; all of them at once", async (t) => {
  const root = await tree({ "empty/notes.txt": "", "nested/sub/pod.yaml": "", "nested/sub/cm.yaml": "" });
  const empty = join(root, "empty");
  const nested = join(root, "nested");
  t.same(await manifestRejectionLines(expandManifestPaths([empty, "-", nested, "-"])), [
    `${empty}: no manifest in this directory (no *.yaml, *.yml, *.json file)`,
    `${nested}: no manifest in this directory (no *.yaml, *.yml, *.json file); its subdirectories hold 2: -R reads them`,
    "-: standard input can be read only once: give - at most once",
  ]);
  t.same(await expandManifestPaths([nested], { recursive: true }), [
    join(nested, "sub/cm.yaml"),
    join(nested, "sub/pod.yaml"),
  ]);
});

t.test("extensions as kubectl compares them", async (t) => {
  const cases: [string, boolean][] = [
    ["pod.yaml", true],
    ["pod.yml", true],
    ["pod.json", true],
    [".pod.yaml", true],
    ["pod.YAML", false],
    ["pod.yaml.bak", false],
    ["yaml", false],
  ];
  for (const [name, expected] of cases) t.equal(hasManifestExtension(name), expected, name);
});
