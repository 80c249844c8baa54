import { ManifestError, UsageError } from "../errors.js";
import { runOptionalTool } from "../runtime/exec.js";
import { MAX_MANIFEST_BYTES, type ManifestSource } from "./read-source.js";

// `-k DIR`, as `kubectl apply -k DIR`: the kustomization rendered by `kustomize build DIR`, else by
// `kubectl kustomize DIR` (kubectl carries kustomize since 1.14), whichever is on PATH first, then
// read as one more manifest named after the command. podrun does not render kustomizations itself:
// kustomize is the one implementation of that format, and every CI that uses -k has one of the two.

/** How long a kustomize build may take (a remote base is fetched): as long as a manifest's read should. */
const BUILD_TIMEOUT_MS = 120_000;

const RENDERERS: readonly { binary: string; args: (dir: string) => string[] }[] = [
  { binary: "kustomize", args: (dir) => ["build", dir] },
  { binary: "kubectl", args: (dir) => ["kustomize", dir] },
];

/** The kustomization of `dir`, rendered; a usage error when neither renderer is installed, a manifest error when the build fails. */
export async function renderKustomization(
  dir: string,
  env: Record<string, string | undefined> = {},
): Promise<ManifestSource> {
  for (const renderer of RENDERERS) {
    const args = renderer.args(dir);
    const name = `${renderer.binary} ${args.join(" ")}`;
    const result = await runOptionalTool(renderer.binary, args, { reject: false, timeoutMs: BUILD_TIMEOUT_MS, env });
    if (result === undefined) continue;
    if (result.exitCode !== 0) {
      const reason = result.stderr.split("\n").find((line) => line.trim() !== "") ?? `exit code ${result.exitCode}`;
      throw new ManifestError([`${dir}: ${name} failed: ${reason.replace(/^Error: /, "")}`]);
    }
    if (Buffer.byteLength(result.stdout) > MAX_MANIFEST_BYTES)
      throw new ManifestError([`${dir}: ${name} printed more than ${MAX_MANIFEST_BYTES} bytes`]);
    if (result.stdout.trim() === "") throw new ManifestError([`${dir}: ${name} printed no object`]);
    return { name, text: result.stdout };
  }
  throw new UsageError(
    `-k ${dir}: neither kustomize nor kubectl is on PATH: install one (kubectl kustomize renders -k)`,
  );
}
