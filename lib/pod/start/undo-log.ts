// What one start made, in order, so that a failed or interrupted start undoes exactly that
// (undo-pod.ts). Something is logged when its making begins: a create that is cut off (Ctrl-C) or
// does not answer in time may still be carried out by the engine, so it stays in the log, by
// name, unless the engine said no (`abandon`).

/** What a run created, for undoStart. */
export type CreatedByRun = { sandbox?: string; containerIds: string[]; volumes?: string[]; podDir?: string };

type Entry =
  | { kind: "podDir"; path: string }
  | { kind: "volumes"; names: string[] }
  | { kind: "sandbox"; name: string; made: boolean }
  | { kind: "container"; name: string; made: false };

/** A make under way: the sandbox or a container, by its runtime name. */
export type Making = Extract<Entry, { made: boolean }>;

export class UndoLog {
  readonly #entries: Entry[] = [];
  /** The containers made, by ID, in the order made: one array for the whole run (a liveness restart adds to it). */
  readonly containerIds: string[] = [];

  /** The pod directory, once chosen: this run's (a kept pod's is not). */
  podDirectory(path: string): void {
    this.#entries.push({ kind: "podDir", path });
  }

  /** Volumes about to be made: removing one that never was is a no-op. */
  volumes(names: string[]): void {
    this.#entries.push({ kind: "volumes", names });
  }

  /** A sandbox or container whose create begins, by its runtime name. */
  begin(kind: Making["kind"], name: string): Making {
    const entry: Making = { kind, name, made: false };
    this.#entries.push(entry);
    return entry;
  }

  /** The create answered: the sandbox is made, or the container, by its ID. */
  made(entry: Making, id?: string): void {
    this.abandon(entry);
    if (entry.kind === "sandbox") this.#entries.push({ ...entry, made: true });
    else this.madeContainer(id!);
  }

  /** A container the engine made though its create failed (created, not started). */
  madeContainer(id: string): void {
    this.containerIds.push(id);
  }

  /** The engine refused the create: nothing was made. */
  abandon(entry: Making): void {
    const index = this.#entries.indexOf(entry);
    if (index >= 0) this.#entries.splice(index, 1);
  }

  /** Everything to undo: containers made (in order), then those under way (by name), sandbox, volumes, pod directory. */
  created(): CreatedByRun {
    const making = this.#entries.flatMap((e) => (e.kind === "container" ? [e.name] : []));
    const sandbox = this.#entries.find((e) => e.kind === "sandbox");
    const volumes = this.#entries.flatMap((e) => (e.kind === "volumes" ? e.names : []));
    const podDir = this.#entries.find((e) => e.kind === "podDir");
    return {
      containerIds: [...this.containerIds, ...making],
      ...(sandbox ? { sandbox: sandbox.name } : {}),
      ...(volumes.length > 0 ? { volumes } : {}),
      ...(podDir ? { podDir: podDir.path } : {}),
    };
  }
}
