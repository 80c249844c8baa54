// The kubelet's merge of pod and container securityContext, as podrun acts on it.
import t from "tap";
import type { Container, PodSpec } from "kubernetes-types/core/v1.js";
import { planSecurityContext } from "../../../lib/pod/spec/security-context.js";

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
