import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import { runCommand } from "../../../lib/runtime/exec.js";
import { removeManagedContainers } from "../../harness/cleanup.js";
import { BUSYBOX, setupEnginePod, testPodHeader, uniqueName } from "../../harness/engine-pod.js";

// Values full of shell syntax reach the container byte for byte, and nothing else runs. podrun
// never uses a shell, so a `$(touch CANARY)` in a value could only run if something evaluated
// it: the container prints its argv and environment back (NUL-separated), and CANARY must exist
// neither on the host nor in the container. Names are DNS names and cannot carry such
// characters: validation refuses them before anything is created. No env value (a Secret's
// least of all) is on any process's command line or in the container's recorded command.

const hex = () => randomBytes(4).toString("hex");

for (const runtime of ["docker", "podman"] as const) {
  t.test(`${runtime}: shell metacharacters, line breaks and non-ASCII reach the container literally`, async (t) => {
    // A shim first on PATH logs the argv of every engine command (NUL after each argument).
    const bin = await mkdtemp(join(tmpdir(), "podrun-inject-bin-"));
    t.teardown(() => rm(bin, { recursive: true, force: true }));
    const engineLog = join(bin, "argv.log");
    const real = (process.env.PATH ?? "")
      .split(":")
      .map((dir) => join(dir, runtime))
      .find((path) => existsSync(path));
    if (!real) return void t.plan(0, `${runtime} is not on PATH`);
    await writeFile(
      join(bin, runtime),
      `#!/bin/sh\nprintf '%s\\0' "$@" >> ${engineLog}\nprintf '\\n\\0' >> ${engineLog}\nexec ${real} "$@"\n`,
      { mode: 0o755 },
    );
    const env = await setupEnginePod(t, runtime, { env: { PATH: `${bin}:${process.env.PATH ?? ""}` } });
    if (!env) return;
    const name = uniqueName("inject");
    t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }).then(() => undefined));
    const canary = `/tmp/podrun-inject-${hex()}`;
    t.teardown(() => rm(canary, { force: true }));
    const touch = `touch ${canary}`;
    const secretMarker = `sekret-${hex()}`;
    const envMarker = `envonly-${hex()}`;

    const payloads = [
      `$(${touch})`,
      `\`${touch}\``,
      `; ${touch}`,
      `| ${touch}`,
      `&& ${touch}`,
      `|| ${touch} &`,
      `> ${canary}`,
      `' ; ${touch} ; '`,
      `"double" 'single' \\ back\\slash`,
      "*",
      "$HOME ${HOME} ~ $0 $1 $@",
      "line one\nline two\r\nline three",
      "tab\there",
      "héllo wörld ✓ 🚀 日本語 \u00a0 \u200b",
      "-x",
      "--privileged",
      "--entrypoint=/bin/sh",
      "%s %n %% \\n",
      "",
      `;$(nope)|\`x\`'"`.repeat(6000),
    ];
    const envValues: Record<string, string> = {
      E_META: `$(${touch}); \`${touch}\` | ${touch} && "q" 'q' * $HOME`,
      E_LINES: `first\nsecond; ${touch}\n`,
      E_UNICODE: `${envMarker} 🚀 日本語 ünïcödé`,
      E_DASH: "--privileged",
      E_LONG: `$(${touch})`.repeat(2800),
      E_EXPANDED: "[$(E_DASH)]",
      E_ESCAPED: "$$(E_DASH)",
      E_UNDEFINED: `$(${touch})$(NOPE)`,
    };
    const configValue = `cm $(${touch}) \`${touch}\` ; | && 'q' "q"\nnext line ✓`;
    const secretValue = `${secretMarker} $(${touch}) \`${touch}\` ; 'q' "q"\nnext line 🚀`;
    const annotation = `note $(${touch}) \`${touch}\` ; | "q"\n✓`;
    const printed = [...Object.keys(envValues), "E_CM", "E_SECRET", "E_ANNOTATION"];
    // Prints its arguments, then the variables, each followed by NUL; then whether CANARY exists.
    const script = [
      `for a in "$@"; do printf 'A:%s\\0' "$a"; done`,
      ...printed.map((v) => `printf '${v}=%s\\0' "$${v}"`),
      `if [ -e ${canary} ]; then printf 'CANARY\\0'; fi`,
    ].join("\n");
    const args = [...payloads, "$(E_DASH)", "$$(E_DASH)", `$(${touch})`];
    const expectedArgs = [...payloads, "--privileged", "$(E_DASH)", `$(${touch})`];

    const yaml =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-cm\ndata:\n  v: ${JSON.stringify(configValue)}\n---\n` +
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${name}-s\nstringData:\n  v: ${JSON.stringify(secretValue)}\n---\n` +
      testPodHeader(name).replace(
        "metadata:\n",
        `metadata:\n  annotations:\n    inject.example.com/note: ${JSON.stringify(annotation)}\n`,
      ) +
      `  containers:\n    - name: a\n      image: ${BUSYBOX}\n` +
      `      command: ${JSON.stringify(["sh", "-c", script, "sh"])}\n` +
      `      args: ${JSON.stringify(args)}\n` +
      `      env:\n` +
      Object.entries(envValues)
        .map(([k, v]) => `        - {name: ${k}, value: ${JSON.stringify(v)}}\n`)
        .join("") +
      `        - {name: E_CM, valueFrom: {configMapKeyRef: {name: ${name}-cm, key: v}}}\n` +
      `        - {name: E_SECRET, valueFrom: {secretKeyRef: {name: ${name}-s, key: v}}}\n` +
      `        - {name: E_ANNOTATION, valueFrom: {fieldRef: {fieldPath: "metadata.annotations['inject.example.com/note']"}}}\n`;

    const up = await env.up(name, yaml);
    t.equal(up.exitCode, 0, up.stderr);
    // Every engine command podrun ran, as the shim on PATH logged it: none may carry an env value.
    const commands = (await readFile(engineLog, "utf8")).split("\n\0").filter(Boolean);
    t.ok(
      commands.some((argv) => argv.startsWith("create\0") && argv.includes(`default_${name}_a`)),
      "the container's create is in the log",
    );
    for (const marker of [secretMarker, envMarker])
      t.same(
        commands.filter((argv) => argv.includes(marker)),
        [],
        `no env value on an engine command line (${marker.split("-")[0]})`,
      );
    t.notMatch(up.stdout + up.stderr, secretMarker, "no secret in the output");

    const container = `default_${name}_a`;
    t.equal((await runCommand(runtime, ["wait", container])).stdout.trim(), "0", "the container exits 0");
    const logs = (await runCommand(runtime, ["logs", container])).stdout;
    const records = logs.split("\0");
    t.equal(records.pop(), "", "every record ends with NUL");
    const argsSeen = records.filter((r) => r.startsWith("A:")).map((r) => r.slice(2));
    t.equal(argsSeen.length, expectedArgs.length, "as many arguments as given");
    expectedArgs.forEach((want, i) =>
      t.ok(
        Buffer.from(argsSeen[i] ?? "\0missing").equals(Buffer.from(want)),
        `argument ${i} byte for byte: ${JSON.stringify(want.slice(0, 40))}`,
      ),
    );
    const envSeen = new Map(
      records
        .filter((r) => !r.startsWith("A:") && r.includes("="))
        .map((r) => [r.slice(0, r.indexOf("=")), r.slice(r.indexOf("=") + 1)]),
    );
    const expectedEnv: Record<string, string> = {
      ...envValues,
      E_EXPANDED: "[--privileged]",
      E_ESCAPED: "$(E_DASH)",
      E_CM: configValue,
      E_SECRET: secretValue,
      E_ANNOTATION: annotation,
    };
    for (const [key, want] of Object.entries(expectedEnv))
      t.ok(Buffer.from(envSeen.get(key) ?? "\0missing").equals(Buffer.from(want)), `${key} byte for byte`);
    t.notOk(records.includes("CANARY"), "nothing ran in the container");
    t.notOk(existsSync(canary), "nothing ran on the host");

    interface Inspected {
      Path?: string;
      Args?: string[];
      Config: {
        Cmd?: string[] | null;
        Entrypoint?: string[] | string | null;
        CreateCommand?: string[] | null;
        Env?: string[];
      };
      HostConfig: { Privileged: boolean };
    }
    const [inspected] = JSON.parse((await runCommand(runtime, ["inspect", container])).stdout) as Inspected[];
    const commandLike = JSON.stringify([
      inspected!.Path,
      inspected!.Args,
      inspected!.Config.Cmd,
      inspected!.Config.Entrypoint,
      inspected!.Config.CreateCommand,
    ]);
    for (const marker of [secretMarker, envMarker])
      t.notMatch(commandLike, marker, `no env value in the recorded command (${marker.split("-")[0]})`);
    t.ok(
      inspected!.Config.Env?.includes(`E_SECRET=${secretValue}`),
      "the Secret's value is in the environment, where it belongs",
    );
    t.equal(inspected!.HostConfig.Privileged, false, "--privileged as a value made nothing privileged");
  });

  t.test(
    `${runtime}: a value longer than any channel can carry is a one-line error, and nothing is left`,
    async (t) => {
      const env = await setupEnginePod(t, runtime);
      if (!env) return;
      const name = uniqueName("inject-huge");
      t.teardown(() => removeManagedContainers(runtime, { "io.kubernetes.pod.name": name }).then(() => undefined));
      const yaml = `${testPodHeader(name)}  containers:\n    - name: a\n      image: ${BUSYBOX}\n      env:\n        - {name: HUGE, value: ${"h".repeat(200_000)}}\n`;
      const r = await env.up(name, yaml);
      t.equal(r.exitCode, 1);
      t.equal(r.stdout.match(/Created/g), null, "no container was created");
      t.equal(
        r.stderr.trimEnd().split("\n").at(-1),
        `Error: CreateContainerConfigError: pod/${name}: container a: environment variable HUGE: its value is 200000 bytes, longer than ${runtime} can receive (an env-file line holds 65535 bytes, a process's environment string 131071): put it in a volume instead`,
      );
      t.equal(
        (await runCommand(runtime, ["ps", "-aq", "--filter", `label=io.kubernetes.pod.name=${name}`])).stdout,
        "",
        "the sandbox was removed too",
      );
    },
  );

  t.test(`${runtime}: names with shell metacharacters are refused before anything is created`, async (t) => {
    const env = await setupEnginePod(t, runtime);
    if (!env) return;
    const tag = hex();
    const cases: [string, string, RegExp][] = [
      [
        "pod name",
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: "inj-${tag};touch-x"\nspec:\n  containers:\n    - {name: a, image: ${BUSYBOX}}\n`,
        /metadata\.name: Invalid value/,
      ],
      [
        "pod name $()",
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: "$(touch inj-${tag})"\nspec:\n  containers:\n    - {name: a, image: ${BUSYBOX}}\n`,
        /metadata\.name: Invalid value/,
      ],
      [
        "namespace",
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: inj-${tag}\n  namespace: "default\`id\`"\nspec:\n  containers:\n    - {name: a, image: ${BUSYBOX}}\n`,
        /metadata\.namespace: Invalid value/,
      ],
      [
        "container name",
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: inj-${tag}\nspec:\n  containers:\n    - {name: "a && b", image: ${BUSYBOX}}\n`,
        /spec\.containers\[0\]\.name: Invalid value/,
      ],
      [
        "label value",
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: inj-${tag}\n  labels:\n    app: "$(id)"\nspec:\n  containers:\n    - {name: a, image: ${BUSYBOX}}\n`,
        /metadata\.labels\[app\]: Invalid value/,
      ],
      [
        "image",
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: inj-${tag}\nspec:\n  containers:\n    - {name: a, image: "busybox;touch-x"}\n`,
        /image/,
      ],
    ];
    for (const [what, yaml, message] of cases) {
      const r = await env.up(`case-${cases.findIndex((c) => c[0] === what)}`, yaml);
      t.equal(r.exitCode, 2, `${what}: exit 2`);
      t.match(r.stderr, message, `${what}: the error names the field`);
      t.equal(r.stdout, "", `${what}: nothing started`);
      t.notMatch(r.stderr, /\n\s+at /, `${what}: no stack trace`);
    }
    const names = (await runCommand(runtime, ["ps", "-a", "--format", "{{.Names}}"])).stdout;
    t.notMatch(names, tag, "no container of any of them exists");
  });
}
