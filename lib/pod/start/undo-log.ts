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
  | { kind: "container"; ref: string; made: boolean };

/** A make under way: the sandbox or a container, by its runtime name. */
export type Making = Extract<Entry, { made: boolean }>;

export class UndoLog {
  readonly #entries: Entry[] = [];

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
    const entry: Making = kind === "sandbox" ? { kind, name, made: false } : { kind, ref: name, made: false };
    this.#entries.push(entry);
    return entry;
  }

  /** The create answered: the sandbox is made, or the container, by its ID. */
  made(entry: Making, id?: string): void {
    this.abandon(entry);
    this.#entries.push(
      entry.kind === "sandbox" ? { ...entry, made: true } : { kind: "container", ref: id!, made: true },
    );
  }

  /** A container the engine made though its create failed (created, not started). */
  madeContainer(id: string): void {
    this.#entries.push({ kind: "container", ref: id, made: true });
  }

  /** The engine refused the create: nothing was made. */
  abandon(entry: Making): void {
    const index = this.#entries.indexOf(entry);
    if (index >= 0) this.#entries.splice(index, 1);
  }

  /** Everything to undo: containers made (in order), then those under way (by name), sandbox, volumes, pod directory. */
  created(): CreatedByRun {
    const containers = this.#entries.filter((e) => e.kind === "container");
    const sandboxes = this.#entries.filter((e) => e.kind === "sandbox");
    const volumes = this.#entries.flatMap((e) => (e.kind === "volumes" ? e.names : []));
    const podDir = this.#entries.find((e) => e.kind === "podDir");
    return {
      containerIds: [...containers.filter((e) => e.made), ...containers.filter((e) => !e.made)].map((e) => e.ref),
      ...(sandboxes.length > 0 ? { sandbox: sandboxes[0]!.name } : {}),
      ...(volumes.length > 0 ? { volumes } : {}),
      ...(podDir ? { podDir: podDir.path } : {}),
    };
  }
}
