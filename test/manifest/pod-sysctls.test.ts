// The API server's rules for the pod's sysctls, through validatePod.
import t from "tap";
import { formatFieldError } from "../../lib/manifest/field-error.js";
import { buildObjectIndex, validatePod } from "../../lib/manifest/validate-objects.js";

const REGEX_MSG =
  "must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$";

function sysctlLines(sysctls: unknown[]): string[] {
  const lines: string[] = [];
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web" },
    spec: { securityContext: { sysctls }, containers: [{ name: "app", image: "busybox:1.36" }] },
  };
  validatePod(pod, buildObjectIndex([]), (e) => lines.push(formatFieldError(e)));
  return lines;
}

t.test("valid names pass, unsafe ones too (the kubelet's admission, not validation)", async (t) => {
  t.same(
    sysctlLines([
      { name: "net.core.somaxconn", value: "1024" },
      { name: "kernel.shm_rmid_forced", value: "1" },
      { name: "net/ipv4/conf/eth0.100/forwarding", value: "1" },
      { name: "kernel.msgmax", value: "1" },
    ]),
    [],
  );
});

t.test("a missing, malformed or repeated name is a field error", async (t) => {
  t.same(sysctlLines([{ value: "1" }]), ["spec.securityContext.sysctls[0].name: Required value"]);
  t.same(sysctlLines([{ name: "Net.Core", value: "1" }]), [
    `spec.securityContext.sysctls[0].name: Invalid value: "Net.Core": ${REGEX_MSG}`,
  ]);
  t.same(sysctlLines([{ name: "net..core", value: "1" }]), [
    `spec.securityContext.sysctls[0].name: Invalid value: "net..core": ${REGEX_MSG}`,
  ]);
  t.same(sysctlLines([{ name: "a".repeat(254), value: "1" }]).length, 1, "longer than 253");
  t.same(
    sysctlLines([
      { name: "net.core.somaxconn", value: "1" },
      { name: "net.core.somaxconn", value: "2" },
    ]),
    ['spec.securityContext.sysctls[1].name: Duplicate value: "net.core.somaxconn"'],
  );
});
