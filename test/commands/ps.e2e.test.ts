import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { BUSYBOX, containerYaml, setup, unique } from "./ps-logs-fixture.js";

// `podrun ps` end to end, against real docker and podman: READY, STATUS, -o wide and --json
// compared with what the engine itself reports.

interface PodList {
  kind: string;
  items: {
    metadata: { name: string; namespace: string; uid: string };
    status: {
      phase: string;
      podIP?: string;
      containerStatuses: {
        name: string;
        ready: boolean;
        restartCount: number;
        image: string;
        containerID: string;
        state: Record<string, { exitCode?: number; reason?: string }>;
      }[];
    };
  }[];
}

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: ps shows READY, STATUS, the pod IP and container IDs as the engine has them`, async (t) => {
    const env = await setup(t, runtime);
    if (!env) return;
    const { namespace } = env;
    const web = unique("web");
    const failed = unique("failed");
    const done = unique("done");
    await env.up(
      web,
      `  containers:\n${containerYaml("app", "exec sleep 600")}${containerYaml("sidecar", "exec sleep 600")}`,
    );
    await env.up(failed, `  containers:\n${containerYaml("app", "echo bad; exit 1")}`);
    await env.up(done, `  containers:\n${containerYaml("app", "echo ok")}`);
    // Both short-lived containers must have exited before ps can say so.
    for (const pod of [failed, done]) await runCommand(runtime, ["wait", ...(await env.idsOf(pod, "app"))]);

    const table = await env.podrun("ps", "-n", namespace);
    t.equal(table.exitCode, 0, table.stderr);
    const lines = table.stdout.trimEnd().split("\n");
    t.match(lines[0], /^NAME\s+READY {3}STATUS\s+RESTARTS {3}AGE$/);
    const row = (name: string) => lines.find((line) => line.startsWith(`${name} `)) ?? "";
    t.match(row(web), new RegExp(`^${web}\\s+2/2\\s+Running\\s+0\\s+\\d+s$`));
    t.match(row(failed), new RegExp(`^${failed}\\s+0/1\\s+Error\\s+0\\s+\\d+s$`));
    t.match(row(done), new RegExp(`^${done}\\s+0/1\\s+Completed\\s+0\\s+\\d+s$`));
    t.equal(lines.length, 4, "only this namespace's pods");

    const wide = await env.podrun("ps", "-n", namespace, "-o", "wide");
    const wideRow = wide.stdout.split("\n").find((line) => line.startsWith(`${web} `)) ?? "";
    t.match(wide.stdout.split("\n")[0], /\bIP\s+CONTAINERS\s+IMAGES\s+CONTAINER IDS$/);
    const infra = await env.inspect((await env.idsOf(web, "infra"))[0]!);
    const ip = infra.NetworkSettings.IPAddress || Object.values(infra.NetworkSettings.Networks ?? {})[0]?.IPAddress;
    t.ok(ip, "the engine gives the sandbox an address");
    t.match(wideRow, ` ${ip} `, "the pod IP is the sandbox's");
    const appIds = await env.idsOf(web, "app");
    t.equal(appIds.length, 2);
    for (const id of appIds) t.match(wideRow, id.slice(0, 12), "each app container's short ID");
    t.match(wideRow, /\s(app,sidecar|sidecar,app)\s/);

    const json = await env.podrun("ps", "-n", namespace, "--json");
    t.equal(json.exitCode, 0, json.stderr);
    const list = JSON.parse(json.stdout) as PodList;
    t.equal(list.kind, "List");
    t.same(list.items.map((pod) => pod.metadata.name).sort(), [web, failed, done].sort());
    const webPod = list.items.find((pod) => pod.metadata.name === web)!;
    t.equal(webPod.metadata.namespace, namespace);
    t.equal(webPod.status.phase, "Running");
    t.equal(webPod.status.podIP, ip);
    t.same(
      webPod.status.containerStatuses.map((c) => c.containerID).sort(),
      appIds.map((id) => `${runtime}://${id}`).sort(),
      "containerID: the engine's IDs",
    );
    t.ok(webPod.status.containerStatuses.every((c) => c.ready && c.state["running"] && c.image === BUSYBOX));
    const failedPod = list.items.find((pod) => pod.metadata.name === failed)!;
    t.equal(failedPod.status.phase, "Failed");
    const engineExit = (await env.inspect((await env.idsOf(failed, "app"))[0]!)).State.ExitCode;
    t.same(failedPod.status.containerStatuses[0]!.state["terminated"], {
      ...failedPod.status.containerStatuses[0]!.state["terminated"],
      exitCode: engineExit,
      reason: "Error",
    });
    t.equal(list.items.find((pod) => pod.metadata.name === done)!.status.phase, "Succeeded");

    const none = await env.podrun("ps", "-n", `${namespace}-none`);
    t.equal(none.exitCode, 0);
    t.equal(none.stdout, "");
    t.equal(none.stderr, `No resources found in ${namespace}-none namespace.\n`);
  });
}
