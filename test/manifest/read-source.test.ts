import { mkdtemp, writeFile, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import t from "tap";
import { MAX_MANIFEST_BYTES, readManifestSource } from "../../lib/manifest/read-source.js";
import { manifestRejectionLines as rejection } from "../harness/manifest-errors.js";

t.test("reads files and standard input", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-src-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "pod.yaml"), "kind: Pod\n");
  t.same(await readManifestSource(join(dir, "pod.yaml")), { name: join(dir, "pod.yaml"), text: "kind: Pod\n" });
  t.same(await readManifestSource("-", Readable.from([Buffer.from("kind: "), Buffer.from("Pod\n")])), {
    name: "<stdin>",
    text: "kind: Pod\n",
  });
});

t.test("refuses what cannot be a manifest, in one line naming the file", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "podrun-src-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "empty.yaml"), "  \n\n");
  await writeFile(join(dir, "huge.yaml"), Buffer.alloc(MAX_MANIFEST_BYTES + 1, 0x61));
  await mkdir(join(dir, "folder"));
  t.same(await rejection(readManifestSource(join(dir, "empty.yaml"))), [
    `${join(dir, "empty.yaml")}: file is empty: expected a Pod manifest`,
  ]);
  t.same(await rejection(readManifestSource(join(dir, "missing.yaml"))), [
    `${join(dir, "missing.yaml")}: cannot read: no such file`,
  ]);
  t.same(await rejection(readManifestSource(join(dir, "folder"))), [
    `${join(dir, "folder")}: is a directory, expected a YAML file`,
  ]);
  t.same(await rejection(readManifestSource(join(dir, "huge.yaml"))), [
    `${join(dir, "huge.yaml")}: manifest is larger than 3 MiB, the limit of the Kubernetes API server`,
  ]);
});

t.test("an endless stream is cut at the cap, not read into memory", async (t) => {
  let produced = 0;
  const endless = new Readable({
    read() {
      produced += 65536;
      this.push(Buffer.alloc(65536, 0x61));
    },
  });
  t.same(await rejection(readManifestSource("-", endless)), [
    "<stdin>: manifest is larger than 3 MiB, the limit of the Kubernetes API server",
  ]);
  t.ok(produced < MAX_MANIFEST_BYTES * 2, `stopped after ${produced} bytes`);
  t.same(await rejection(readManifestSource("-", Readable.from([]))), [
    "<stdin>: file is empty: expected a Pod manifest",
  ]);
});
