// The kubelet's merge of pod and container securityContext, as podrun acts on it.
import t from "tap";
import type { Container, PodSpec } from "kubernetes-types/core/v1.js";
import { PodrunError } from "../../../lib/errors.js";
import { buildContainerSpec } from "../../../lib/pod/spec/container-spec.js";
import { LABEL_SPEC_HASH } from "../../../lib/pod/spec/spec-hash.js";
import { needsImageUser, planSecurityContext, verifyRunAsNonRoot } from "../../../lib/pod/spec/security-context.js";

const container = (securityContext?: Container["securityContext"]): Container => ({ name: "a", image: "x", securityContext });
const pod = (securityContext?: PodSpec["securityContext"]): PodSpec => ({ containers: [], securityContext });

t.test("nothing set: nothing to say", async (t) => {
  t.equal(planSecurityContext(pod(), container()), undefined);
  t.equal(planSecurityContext(pod({}), container({})), undefined);
  t.equal(planSecurityContext(pod({ seccompProfile: { type: "RuntimeDefault" } }), container({ allowPrivilegeEscalation: true, privileged: false, readOnlyRootFilesystem: false })), undefined, "defaults and fields of other slices");
});

t.test("the container's runAsUser/runAsGroup win over the pod's", async (t) => {
  t.same(planSecurityContext(pod({ runAsUser: 1000, runAsGroup: 3000 }), container()), { user: 1000, group: 3000 });
  t.same(planSecurityContext(pod({ runAsUser: 1000, runAsGroup: 3000 }), container({ runAsUser: 2000 })), { user: 2000, group: 3000 });
  t.same(planSecurityContext(pod({ runAsUser: 1000 }), container({ runAsUser: 0, runAsGroup: 0 })), { user: 0, group: 0 }, "0 overrides");
  t.same(planSecurityContext(pod({ runAsNonRoot: true }), container()), { runAsNonRoot: true }, "runAsNonRoot counts (in the spec hash)");
  t.equal(planSecurityContext(pod({ runAsNonRoot: true }), container({ runAsNonRoot: false })), undefined, "the container's false wins");
});

t.test("supplemental groups: fsGroup first, then supplementalGroups (pod level only)", async (t) => {
  t.same(planSecurityContext(pod({ fsGroup: 2000, supplementalGroups: [4000, 5000] }), container()), { supplementalGroups: [2000, 4000, 5000] });
  t.same(planSecurityContext(pod({ supplementalGroups: [] }), container()), undefined);
});

t.test("container-only fields", async (t) => {
  t.same(
    planSecurityContext(pod(), container({ readOnlyRootFilesystem: true, privileged: true, allowPrivilegeEscalation: false, capabilities: { add: ["net_admin", "CAP_SYS_TIME"], drop: ["ALL"] } })),
    { readOnlyRootFilesystem: true, privileged: true, noNewPrivileges: true, capAdd: ["NET_ADMIN", "SYS_TIME"], capDrop: ["ALL"] },
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
  t.equal(check({ runAsNonRoot: true }, {}, undefined), `container has runAsNonRoot and image will run as root ${where}`, "no USER: root");
  t.equal(check({}, { runAsNonRoot: true }, "0:0"), `container has runAsNonRoot and image will run as root ${where}`);
  t.equal(check({}, { runAsNonRoot: true }, "1000:1000"), "ok");
  t.equal(check({}, { runAsNonRoot: true }, "nobody"), `container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user is non-root ${where}`);
  t.equal(check({ runAsNonRoot: true, runAsUser: 1000 }, {}, undefined), "ok", "runAsUser decides, the image is not asked");
  t.equal(check({ runAsNonRoot: true }, { runAsUser: 0 }, "1000"), `container's runAsUser breaks non-root policy ${where}`);
  t.match(check({}, { runAsNonRoot: true }, "4294967296"), "container has runAsNonRoot and image has an invalid user id (4294967296)");

  t.equal(needsImageUser(pod({ runAsNonRoot: true }), container()), true);
  t.equal(needsImageUser(pod({ runAsNonRoot: true }), container({ runAsUser: 5 })), false);
  t.equal(needsImageUser(pod(), container({ runAsNonRoot: false })), false);
});

t.test("the ContainerSpec: no securityContext, no field (the hash as before); one set, a different hash", async (t) => {
  const identity = { name: "web", namespace: "default", uid: "u-1" };
  const build = (spec: PodSpec) => buildContainerSpec({ pod: { metadata: { name: "web" }, spec }, identity, container: spec.containers[0]!, kind: "app", imageRef: "x:latest" });
  const plain = build({ containers: [container()] });
  t.notOk("security" in plain);
  t.same(build({ containers: [container({ allowPrivilegeEscalation: true })], securityContext: {} }).labels[LABEL_SPEC_HASH], plain.labels[LABEL_SPEC_HASH], "defaults only: the same hash");
  const secured = build({ containers: [container({ runAsUser: 1000 })] });
  t.same(secured.security, { user: 1000 });
  t.not(secured.labels[LABEL_SPEC_HASH], plain.labels[LABEL_SPEC_HASH]);
});
