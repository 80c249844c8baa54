import t from "tap";
import { runCommand } from "../../lib/runtime/exec.js";
import { removeManagedContainers } from "./cleanup.js";
import { requireImage, requireTestEnv } from "./engine.js";

for (const runtime of ["docker", "podman"] as const) {
  t.test(`removeManagedContainers removes ${runtime} containers by label, and only those`, async (t) => {
    const env = requireTestEnv(t);
    if (!env || !(await requireImage(t, runtime, env.images.busybox))) return;
    const pod = `cleanup-test-${process.pid}`;
    const create = (name: string, labels: string[]) =>
      runCommand(runtime, [
        "create",
        "--name",
        name,
        ...labels.flatMap((l) => ["--label", l]),
        env.images.busybox,
        "sleep",
        "60",
      ]);
    const other = `${pod}-unmanaged`;
    t.teardown(() => runCommand(runtime, ["rm", "-f", other], { reject: false }).then(() => undefined));
    await create(`${pod}-a`, ["io.podrun.managed=true", `io.kubernetes.pod.name=${pod}`]);
    await create(`${pod}-b`, ["io.podrun.managed=true", `io.kubernetes.pod.name=${pod}`]);
    await create(other, [`io.kubernetes.pod.name=${pod}`]);
    await runCommand(runtime, ["start", `${pod}-a`]);

    const removed = await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod });
    t.equal(removed.length, 2);
    const left = await runCommand(runtime, [
      "ps",
      "-a",
      "--format",
      "{{.Names}}",
      "--filter",
      `label=io.kubernetes.pod.name=${pod}`,
    ]);
    t.equal(left.stdout.trim(), other, "the unlabelled container stays");
    t.same(await removeManagedContainers(runtime, { "io.kubernetes.pod.name": pod }), [], "nothing left: no error");
  });
}
