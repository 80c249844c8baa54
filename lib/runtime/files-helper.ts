import { LABEL_FILES_HELPER, type HelperMount } from "./types.js";

// The one-off container that carries files between this host and an engine that cannot see this
// host's disk (lib/pod/volumes/engine-files.ts): `run --rm -i` of the Service proxy's image, which
// holds the helper (images/service-proxy/files.go), with no network, the volumes it works on
// mounted, and a tar archive on its stdin. It is removed when it exits; labelled so that what a
// killed run left can be told from the pods' containers.

/** `run --rm -i --network none [--mount …] IMAGE ARGS…`. */
export function buildFilesHelperArgs(image: string, args: readonly string[], mounts: readonly HelperMount[]): string[] {
  return [
    "run",
    "--rm",
    "-i",
    "--network",
    "none",
    "--label",
    `${LABEL_FILES_HELPER}=true`,
    // As create-args.ts says them: `-v NAME:PATH[:ro]` for a volume (podman's `--mount type=volume`
    // takes no bare `readonly`), `--mount type=bind,…` for a path, refused when it is missing.
    ...mounts.flatMap((mount) =>
      mount.type === "volume"
        ? ["-v", `${mount.source}:${mount.target}${mount.readOnly ? ":ro" : ""}`]
        : ["--mount", `type=bind,source=${mount.source},target=${mount.target}${mount.readOnly ? ",readonly" : ""}`],
    ),
    image,
    ...args,
  ];
}
