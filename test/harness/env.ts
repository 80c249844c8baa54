// What scripts/test-env.sh brought up, read from $PODRUN_TEST_HOME/env.json. Tests never hard-code
// registry addresses or image names: they take them from here.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type RegistryName = "open" | "auth";

export interface TestEnv {
  /** The state folder of scripts/test-env.sh ($PODRUN_TEST_HOME, default /var/lib/podrun-test). */
  home: string;
  registries: Record<RegistryName, string>;
  auth: { username: string; passwordFile: string };
  images: {
    /** In the open registry, and tagged in docker and podman. */
    busybox: string;
    busyboxLatest: string;
    /** Only in the auth registry: docker and podman do not have it until they pull it. */
    privateBusybox: string;
    /** The kubelet's default infra image, built locally into docker and podman. */
    pause: string;
    /** The same pause image in the open registry. */
    pauseRemote: string;
    /** podrun's Service proxy image, built from images/service-proxy into docker and podman; absent in an older env.json. */
    serviceProxy?: string;
    /** The same Service proxy image in the open registry. */
    serviceProxyRemote?: string;
    /** The end-to-end tests' UDP server (images/test-udp-responder), in the open registry and docker and podman; absent in an older env.json. */
    udpResponder?: string;
  };
  runtimes: string[];
  /** The registries' logs: one access-log line per HTTP request, among app-log lines. */
  logs: Record<RegistryName, string>;
  /** kubectl's YAML reader built from scripts/k8s-yaml-reader; absent in an older env.json. */
  yamlReader?: string;
  /**
   * The simulated VM engine: a dockerd in a network namespace of its own (`netns`), reached at
   * `host` (a DOCKER_HOST), holding busybox, pause and the Service proxy; absent in an older env.json.
   */
  vmDocker?: { host: string; netns: string };
  /** A podman system service in the same namespace, with its own storage and subnets, reached at `host` (a CONTAINER_HOST). */
  vmPodman?: { host: string; netns: string };
  /** A directory of this host that both VM engines' mount namespaces hide under a tmpfs: a state directory there is one they cannot see. */
  vmHiddenDir?: string;
  /** Rootless podman: a user whose podman runs in a user namespace of its own, holding busybox, pause and the Service proxy. */
  rootlessPodman?: { user: string; uid: number; home: string; runtimeDir: string };
}

export function testEnvHome(env: NodeJS.ProcessEnv = process.env): string {
  return env["PODRUN_TEST_HOME"] || "/var/lib/podrun-test";
}

/** The env.json of scripts/test-env.sh, or undefined when it has not run on this machine. */
export function loadTestEnv(env: NodeJS.ProcessEnv = process.env): TestEnv | undefined {
  const home = testEnvHome(env);
  let text: string;
  try {
    text = readFileSync(join(home, "env.json"), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return { home, ...(JSON.parse(text) as Omit<TestEnv, "home">) };
}

/** The auth registry's password. Read only when a test needs it; never put it in argv. */
export function readRegistryPassword(testEnv: TestEnv): string {
  return readFileSync(testEnv.auth.passwordFile, "utf8").trim();
}
