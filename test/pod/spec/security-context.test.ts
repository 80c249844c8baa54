// The kubelet's merge of pod and container securityContext, as podrun acts on it.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import type { Container, PodSpec } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../../lib/errors.js";
import { buildContainerSpec } from "../../../lib/pod/spec/container-spec.js";
import { LABEL_SPEC_HASH } from "../../../lib/pod/spec/spec-hash.js";
import {
  DEFAULT_SECCOMP_PROFILE_ROOT,
  needsImageUser,
  planSecurityContext,
  resolveSeccompProfile,
  verifyRunAsNonRoot,
} from "../../../lib/pod/spec/security-context.js";

const container = (securityContext?: Container["securityContext"]): Container => ({
  name: "a",
  image: "x",
  securityContext,
});
const pod = (securityContext?: PodSpec["securityContext"]): PodSpec => ({ containers: [], securityContext });

t.test("nothing set: nothing to say", async (t) => {
  t.equal(planSecurityContext(pod(), container()), undefined);
  t.equal(planSecurityContext(pod({}), container({})), undefined);
  t.equal(
    planSecurityContext(
      pod({ seccompProfile: { type: "RuntimeDefault" } }),
      container({ allowPrivilegeEscalation: true, privileged: false, readOnlyRootFilesystem: false }),
    ),
    undefined,
    "defaults and fields of other slices",
  );
});

t.test("the container's runAsUser/runAsGroup win over the pod's", async (t) => {
  t.same(planSecurityContext(pod({ runAsUser: 1000, runAsGroup: 3000 }), container()), { user: 1000, group: 3000 });
  t.same(planSecurityContext(pod({ runAsUser: 1000, runAsGroup: 3000 }), container({ runAsUser: 2000 })), {
    user: 2000,
    group: 3000,
  });
  t.same(
    planSecurityContext(pod({ runAsUser: 1000 }), container({ runAsUser: 0, runAsGroup: 0 })),
    { user: 0, group: 0 },
    "0 overrides",
  );
  t.same(
    planSecurityContext(pod({ runAsNonRoot: true }), container()),
    { runAsNonRoot: true },
    "runAsNonRoot counts (in the spec hash)",
  );
  t.equal(
    planSecurityContext(pod({ runAsNonRoot: true }), container({ runAsNonRoot: false })),
    undefined,
    "the container's false wins",
  );
});

t.test("supplemental groups: fsGroup first, then supplementalGroups (pod level only)", async (t) => {
  t.same(planSecurityContext(pod({ fsGroup: 2000, supplementalGroups: [4000, 5000] }), container()), {
    supplementalGroups: [2000, 4000, 5000],
  });
  t.same(planSecurityContext(pod({ supplementalGroups: [] }), container()), undefined);
});

t.test("container-only fields", async (t) => {
  t.same(
    planSecurityContext(
      pod(),
      container({
        readOnlyRootFilesystem: true,
        privileged: true,
        allowPrivilegeEscalation: false,
        capabilities: { add: ["net_admin", "CAP_SYS_TIME"], drop: ["ALL"] },
      }),
    ),
    {
      readOnlyRootFilesystem: true,
      privileged: true,
      noNewPrivileges: true,
      capAdd: ["NET_ADMIN", "SYS_TIME"],
      capDrop: ["ALL"],
    },
  );
  t.same(planSecurityContext(pod(), container({ capabilities: { add: [], drop: [] } })), undefined);
});

t.test("runAsNonRoot: the kubelet's verifyRunAsNonRoot, with the image's USER", async (t) => {
  const identity = { name: "web", namespace: "default", uid: "u-1" };
  const where = `(pod: "web_default(u-1)", container: a)`;
  const check = (podSc: PodSpec["securityContext"], own: Container["securityContext"], imageUser?: string) => {
    try {
      verifyRunAsNonRoot({ spec: pod(podSc), container: container(own), identity, imageUser });
      return "ok";
    } catch (error) {
      t.ok(error instanceof PodrunError && error.reason === "CreateContainerConfigError");
      return (error as Error).message;
    }
  };
  t.equal(check({}, {}, undefined), "ok", "not asked: root is fine");
  t.equal(check({ runAsNonRoot: true }, { runAsNonRoot: false }, undefined), "ok", "the container's false wins");
  t.equal(
    check({ runAsNonRoot: true }, {}, undefined),
    `container has runAsNonRoot and image will run as root ${where}`,
    "no USER: root",
  );
  t.equal(check({}, { runAsNonRoot: true }, "0:0"), `container has runAsNonRoot and image will run as root ${where}`);
  t.equal(check({}, { runAsNonRoot: true }, "1000:1000"), "ok");
  t.equal(
    check({}, { runAsNonRoot: true }, "nobody"),
    `container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root ${where}`,
  );
  t.equal(
    check({ runAsNonRoot: true, runAsUser: 1000 }, {}, undefined),
    "ok",
    "runAsUser decides, the image is not asked",
  );
  t.equal(
    check({ runAsNonRoot: true }, { runAsUser: 0 }, "1000"),
    `container's runAsUser breaks non-root policy ${where}`,
  );
  t.match(
    check({}, { runAsNonRoot: true }, "4294967296"),
    "container has runAsNonRoot and image has an invalid user id (4294967296)",
  );

  t.equal(needsImageUser(pod({ runAsNonRoot: true }), container()), true);
  t.equal(needsImageUser(pod({ runAsNonRoot: true }), container({ runAsUser: 5 })), false);
  t.equal(needsImageUser(pod(), container({ runAsNonRoot: false })), false);
});

t.test("the ContainerSpec: no securityContext, no field (the hash as before); one set, a different hash", async (t) => {
  const identity = { name: "web", namespace: "default", uid: "u-1" };
  const build = (spec: PodSpec) =>
    buildContainerSpec({
      pod: { metadata: { name: "web" }, spec },
      identity,
      container: spec.containers[0]!,
      kind: "app",
      imageRef: "x:latest",
    });
  const plain = build({ containers: [container()] });
  t.notOk("security" in plain);
  t.same(
    build({ containers: [container({ allowPrivilegeEscalation: true })], securityContext: {} }).labels[LABEL_SPEC_HASH],
    plain.labels[LABEL_SPEC_HASH],
    "defaults only: the same hash",
  );
  const secured = build({ containers: [container({ runAsUser: 1000 })] });
  t.same(secured.security, { user: 1000 });
  t.not(secured.labels[LABEL_SPEC_HASH], plain.labels[LABEL_SPEC_HASH]);
});

t.test(
  "seccompProfile: the container's over the pod's; RuntimeDefault sets nothing; Localhost is a file under the profiles root",
  async (t) => {
    t.equal(DEFAULT_SECCOMP_PROFILE_ROOT, "/var/lib/kubelet/seccomp");
    t.same(planSecurityContext(pod({ seccompProfile: { type: "Unconfined" } }), container()), {
      seccomp: "unconfined",
    });
    t.equal(
      planSecurityContext(
        pod({ seccompProfile: { type: "Unconfined" } }),
        container({ seccompProfile: { type: "RuntimeDefault" } }),
      ),
      undefined,
      "the container's RuntimeDefault wins",
    );
    t.same(
      planSecurityContext(
        pod({ seccompProfile: { type: "RuntimeDefault" } }),
        container({ seccompProfile: { type: "Unconfined" } }),
      ),
      { seccomp: "unconfined" },
    );
    const root = await mkdtemp(join(tmpdir(), "podrun-seccomp-"));
    t.teardown(() => rm(root, { recursive: true, force: true }));
    await writeFile(join(root, "audit.json"), '{"defaultAction":"SCMP_ACT_ALLOW"}');
    t.equal(
      resolveSeccompProfile({ type: "Localhost", localhostProfile: "audit.json" }, root),
      join(root, "audit.json"),
    );
    t.equal(resolveSeccompProfile({ type: "RuntimeDefault" }, root), undefined);
    t.equal(resolveSeccompProfile(undefined, root), undefined);
    const failure = (run: () => unknown): PodrunError => {
      try {
        run();
      } catch (error) {
        return error as PodrunError;
      }
      throw new Error("no error");
    };
    const missing = failure(() => resolveSeccompProfile({ type: "Localhost", localhostProfile: "nope.json" }, root));
    t.equal(missing.reason, "CreateContainerConfigError");
    t.equal(
      missing.message,
      `seccomp profile "nope.json" not found: no file ${join(root, "nope.json")} (the profiles directory is $PODRUN_SECCOMP_PROFILE_ROOT, else /var/lib/kubelet/seccomp)`,
    );
    t.equal(
      failure(() => resolveSeccompProfile({ type: "Localhost" }, root)).message,
      "localhostProfile must be set if seccompProfile type is Localhost.",
    );
    const saved = process.env.PODRUN_SECCOMP_PROFILE_ROOT;
    process.env.PODRUN_SECCOMP_PROFILE_ROOT = root;
    t.teardown(() => {
      if (saved === undefined) delete process.env.PODRUN_SECCOMP_PROFILE_ROOT;
      else process.env.PODRUN_SECCOMP_PROFILE_ROOT = saved;
    });
    t.same(
      planSecurityContext(pod(), container({ seccompProfile: { type: "Localhost", localhostProfile: "audit.json" } })),
      { seccomp: join(root, "audit.json") },
      "the root from the environment",
    );
  },
);
