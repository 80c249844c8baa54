import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { Test } from "tap";
import { FakeRuntime, type FakeRuntimeOptions } from "./fake-runtime.js";
import { up } from "../../lib/commands/up.js";

// What an engine-free test of a command needs around it: a fake engine, a temporary directory for
// manifests and the state, and stdout/stderr captured as text. The options spread into a
// command's options (up, down, logs, ps) make it talk to the fake and to the temporary state.

/** A stream that keeps what is written to it. */
export interface CapturedStream extends PassThrough {
  /** Everything written so far. */
  readonly text: string;
  /** The lines written so far, event times ("12:00:00  ") removed, without the last empty one. */
  lines(): string[];
}

export function captureStream(): CapturedStream {
  const stream = new PassThrough() as PassThrough & { text: string; lines(): string[] };
  stream.text = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => (stream.text += chunk));
  stream.lines = () =>
    stream.text
      .split("\n")
      .slice(0, -1)
      .map((line) => line.replace(/^\d\d:\d\d:\d\d {2}/, ""));
  return stream;
}

export interface CommandWorld {
  runtime: FakeRuntime;
  dir: string;
  stateDir: string;
  stdout: CapturedStream;
  stderr: CapturedStream;
  /** Options every command takes: the fake engine, no engine probe, the temporary state, no colour. */
  io: {
    createRuntime: () => FakeRuntime;
    runtime: "docker";
    stateDir: string;
    env: NodeJS.ProcessEnv;
    stdout: CapturedStream;
    stderr: CapturedStream;
  };
  /** Writes a manifest file in the temporary directory; returns its path. */
  manifest(name: string, text: string): Promise<string>;
  /** New captured streams for the next command (the fake and the state stay). */
  nextCommand(): void;
}

/** A fake engine with the sandbox image present, a temporary directory removed at the end of `t`. */
export async function createCommandWorld(t: Test, options: FakeRuntimeOptions = {}): Promise<CommandWorld> {
  const dir = await mkdtemp(join(tmpdir(), "podrun-command-"));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // Engine volumes are directories here, as a local engine's are: `up` sets their mode.
  const runtime = new FakeRuntime({
    images: ["registry.k8s.io/pause:3.10"],
    volumeRoot: join(dir, "volumes"),
    ...options,
  });
  const stateDir = join(dir, "state");
  const world: CommandWorld = {
    runtime,
    dir,
    stateDir,
    stdout: captureStream(),
    stderr: captureStream(),
    io: undefined as never,
    manifest: async (name, text) => {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    nextCommand: () => {
      world.stdout = captureStream();
      world.stderr = captureStream();
      world.io = makeIo();
    },
  };
  const makeIo = (): CommandWorld["io"] => ({
    createRuntime: () => runtime,
    runtime: "docker",
    stateDir,
    // No CI variable, no TERM: a test's output is the same on a terminal and in CI.
    env: { NO_COLOR: "1", PODRUN_STATE_DIR: stateDir, PATH: process.env.PATH },
    stdout: world.stdout,
    stderr: world.stderr,
  });
  world.io = makeIo();
  return world;
}

/** `podrun up` of one manifest text on the world's fake engine, with the defaults of the command line. */
export async function upManifest(world: CommandWorld, name: string, text: string): Promise<void> {
  await up({
    files: [await world.manifest(name, text)],
    publishAll: false,
    parallelPulls: 1,
    keepOnFailure: false,
    dryRun: false,
    json: false,
    ...world.io,
  });
}
