import type { Dialect } from "./dialects.js";
import { CommandError, type CommandResult } from "./exec.js";

// podman makes a container in its storage before it records it in its database: a `podman
// create` killed in between (a CI job's timeout kills podrun's whole process group) leaves a
// container that only the storage has. `podman ps -a` does not list it (`--external` does), no
// label finds it, yet it holds the name, and the next `create` of that name fails with "the
// container name … is already in use by <id>". When the database does not know that name, the
// holder can only be such a leftover (up's name check has already reported any container the
// database knows): it is removed, as `podman rm` removes one, and the create is made once more.

const NAME_IN_USE = /the container name "([^"]+)" is already in use by ([0-9a-f]{12,64})/;

/** The name and storage ID in podman's "already in use" error, if that is the error. */
export function findNameHolder(stderr: string): { name: string; id: string } | undefined {
  const match = NAME_IN_USE.exec(stderr);
  return match ? { name: match[1]!, id: match[2]! } : undefined;
}

/**
 * Runs `create`; on podman, when its name is held by a container the database does not know,
 * removes that container and runs `create` once more. `run` runs an engine command without
 * rejecting on its exit code.
 */
export async function createPastStorageLeftover<T>(
  dialect: Dialect,
  create: () => Promise<T>,
  run: (args: readonly string[]) => Promise<CommandResult>,
): Promise<T> {
  try {
    return await create();
  } catch (error) {
    const holder =
      dialect.sandbox === "pod" && error instanceof CommandError ? findNameHolder(error.stderr) : undefined;
    if (!holder) throw error;
    // Exit 1: no container of that name in the database. Anything else is a real clash, or an engine that cannot tell.
    if ((await run(["container", "exists", holder.name])).exitCode !== 1) throw error;
    await run(["rm", "-f", holder.id]);
    return create();
  }
}
