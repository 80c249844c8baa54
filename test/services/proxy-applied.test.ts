import { createHash } from "node:crypto";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import type { InvolvedObject } from "../../lib/events/types.js";
import { hasApplied, waitForProxies, type ProxyFiles } from "../../lib/services/proxy-applied.js";
import type { ContainerState } from "../../lib/runtime/types.js";

// `up` waits for each proxy it wrote to until the proxy reports the hash of the config file as it
// is now (images/service-proxy/watch.go writes it), at most for its bound, and never for a proxy
// that is not running. The proxy's side is played by the test, writing `applied` itself.

const CONFIG = '{"service": "default/api", "ports": []}\n';
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

const made: string[] = [];
t.teardown(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

async function proxyFiles(name: string, config = CONFIG): Promise<ProxyFiles> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-applied-"));
  made.push(dir);
  const files = {
    name,
    namespace: "default",
    service: name,
    uid: "",
    configDir: join(dir, "proxy"),
    statusDir: join(dir, "status"),
  };
  await mkdir(files.configDir);
  await mkdir(files.statusDir);
  await writeFile(join(files.configDir, "service.json"), config);
  return files;
}

const report = (files: ProxyFiles, text: string) => writeFile(join(files.statusDir, "applied"), `${sha(text)}\n`);

function fakeDeps(running: readonly string[]) {
  const events: { object: InvolvedObject; reason: string; message: string }[] = [];
  const inspected: string[][] = [];
  const deps = {
    runtime: {
      name: "docker" as const,
      inspectContainers: (names: readonly string[]) => {
        inspected.push([...names]);
        return Promise.resolve(
          names.map((name) => ({ name, running: running.includes(name) }) as unknown as ContainerState),
        );
      },
    },
    recorder: {
      event: (object: InvolvedObject, _type: string, reason: string, message: string) => {
        events.push({ object, reason, message });
        return undefined as never;
      },
    },
  };
  return { deps, events, inspected };
}

t.test("hasApplied compares the report with the config file's bytes", async (t) => {
  const files = await proxyFiles("a");
  t.equal(await hasApplied(files), false, "no report yet");
  await report(files, "an older config");
  t.equal(await hasApplied(files), false, "the report of an older config");
  await report(files, CONFIG);
  t.equal(await hasApplied(files), true);
});

t.test("every proxy applied: no engine call, no wait", async (t) => {
  const a = await proxyFiles("a");
  await report(a, CONFIG);
  const { deps, events, inspected } = fakeDeps(["a"]);
  t.same(await waitForProxies(deps, [a, a]), []);
  t.same(inspected, [], "the engine is asked nothing");
  t.same(events, []);
});

t.test("a proxy that reports during the wait ends it", async (t) => {
  const a = await proxyFiles("a");
  const { deps, events, inspected } = fakeDeps(["a"]);
  setTimeout(() => void report(a, CONFIG), 60);
  const start = Date.now();
  t.same(await waitForProxies(deps, [a], { pollMs: 10 }), []);
  t.ok(Date.now() - start < 1000, "returns as soon as the report is there");
  t.same(inspected, [["a"]], "one look at the engine");
  t.same(events, []);
});

t.test("a proxy not running is not waited for; a running one behind is a Warning at the bound", async (t) => {
  const stopped = await proxyFiles("stopped");
  const behind = await proxyFiles("behind");
  await report(behind, "the previous config");
  const { deps, events } = fakeDeps(["behind"]);
  const start = Date.now();
  t.same(await waitForProxies(deps, [stopped, behind], { timeoutMs: 150, pollMs: 10 }), ["behind"]);
  const took = Date.now() - start;
  t.ok(took >= 140 && took < 2000, `waited the bound (${took} ms)`);
  t.same(
    events.map((e) => [e.object.kind, e.object.name, e.reason]),
    [["Service", "behind", "ProxyNotSynced"]],
  );
  t.match(events[0]?.message, /within 0\.15s.*`docker logs behind`/);
});

t.test("nothing running: no wait at all", async (t) => {
  const a = await proxyFiles("a");
  const { deps, events } = fakeDeps([]);
  const start = Date.now();
  t.same(await waitForProxies(deps, [a], { timeoutMs: 5000, pollMs: 10 }), []);
  t.ok(Date.now() - start < 1000);
  t.same(events, []);
});

t.test("Ctrl-C ends the wait at once, with no Warning", async (t) => {
  const a = await proxyFiles("a");
  const { deps, events } = fakeDeps(["a"]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const start = Date.now();
  t.same(await waitForProxies(deps, [a], { timeoutMs: 5000, pollMs: 10, signal: controller.signal }), ["a"]);
  t.ok(Date.now() - start < 1000, "well before the bound");
  t.same(events, []);
});
