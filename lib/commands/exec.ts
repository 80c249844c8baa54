import { ExitCode, ExitError, UsageError } from "../errors.js";
import { readPodRecord } from "../pod/pod-record.js";
import { chooseExecContainer } from "../pod/status/exec-target.js";
import { summarizePod } from "../pod/status/pod-status.js";
import { resolveStateDir } from "../state/paths.js";
import { failWith, findOnePod, openEngine, type EngineCommandOptions } from "./engine-command.js";
import { stopSignal } from "../process/stop-signal.js";

// `podrun exec POD|TYPE/NAME -- COMMAND…`: a command in a running container, as `kubectl exec`
// runs it: the pod and container chosen as kubectl chooses (pod/status/exec-target.ts), the
// command's output as it comes, its exit code passed through (with kubectl's "command terminated
// with exit code N" line), stdin streamed with -i, a terminal with -t.

export interface ExecOptions extends EngineCommandOptions {
  /** A pod's name or TYPE/NAME (a workload: its most active pod); absent with `selector`. */
  target?: string;
  /** `-l`: the most active of the pods whose labels match. */
  selector?: string;
  /** The command and its arguments (after `--`). */
  command: string[];
  /** `-c`: the container (an app, sidecar or init container). Default: the pod's default container. */
  container?: string;
  /** `-i`: stream standard input to the command. */
  stdin: boolean;
  /** `-t`: give the command a terminal (standard input must be one). */
  tty: boolean;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
}

export async function exec(options: ExecOptions): Promise<void> {
  const { env = process.env, stdout = process.stdout, stderr = process.stderr, input = process.stdin } = options;
  checkExecArguments(options);
  const runtime = await openEngine(options, env);
  const namespace = options.namespace ?? "default";
  const stateDir = options.stateDir ?? resolveStateDir(env);
  // 1. The pod: the one named, or the most active of a workload's, a Service's or those -l selects.
  const { record } = await findOnePod(runtime, namespace, { ...options, command: "exec", stateDir }, stderr);
  // 2. The container, from the pod's record (its spec) and what the engine runs.
  const spec = await readPodRecord(stateDir, runtime.name, record);
  const choice = chooseExecContainer(summarizePod(record, runtime.name), spec, options.container);
  if (!choice.ok) return failWith(stderr, `error: ${choice.message}`);
  if (choice.note !== undefined) stderr.write(`${choice.note}\n`);
  // 3. The command, attached; its exit code is podrun's.
  // Without a terminal, Ctrl-C reaches podrun: it ends the command, exit 130. With one, it is a
  // key the command reads.
  const interrupt = options.tty ? undefined : stopSignal(options.signal);
  try {
    const code = await runtime.execAttached(choice.state.id, options.command, {
      stdin: options.stdin ? input : undefined,
      tty: options.tty,
      stdout,
      stderr,
      ...(interrupt ? { signal: interrupt.signal } : {}),
    });
    if (interrupt?.signal.aborted) throw new ExitError(ExitCode.Interrupted);
    if (code !== 0) {
      stderr.write(`command terminated with exit code ${code}\n`);
      throw new ExitError(code);
    }
  } finally {
    interrupt?.release();
  }
}

function checkExecArguments(options: ExecOptions): void {
  if (options.command.length === 0) throw new UsageError("you must specify at least one command for the container");
  if (options.selector !== undefined && options.target !== undefined)
    throw new UsageError("only a selector (-l) or a POD name is allowed");
  if (options.selector === undefined && options.target === undefined)
    throw new UsageError("POD or TYPE/NAME is a required argument for the exec command");
  if (options.tty && options.input !== undefined && options.input.isTTY !== true && options.stdin)
    throw new UsageError("-t needs a terminal on standard input: drop -t to stream a pipe with -i");
}
