// Registry credentials as podrun hands them to a pull: read from a pod's imagePullSecrets or an
// auth file, matched to an image the way the kubelet's keyring matches them.

/** One set of registry credentials. Never printed, logged or stored by podrun. */
export interface RegistryCredential {
  username: string;
  password: string;
  /** The registry key it matched, normalised (`host[:port][/path]`): where the engine must use it. */
  registry: string;
  /** Where it came from, for messages: `secret "regcred"`, `--authfile /ci/auth.json`. Never a value. */
  source: string;
}
