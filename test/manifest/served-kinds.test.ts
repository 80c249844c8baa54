// What a v1.36 API server serves: kinds at their versions, versions it stopped serving (with
// kubectl's words and the version to use), typos in built-in groups, custom resources.
import t from "tap";
import { describeNoMatch, matchKind, SERVED_KINDS } from "../../lib/manifest/served-kinds.js";

t.test("served, not served, unknown, custom", async (t) => {
  const cases: [string, string, string][] = [
    ["v1", "Pod", "served"],
    ["apps/v1", "Deployment", "served"],
    ["batch/v1", "CronJob", "served"],
    ["autoscaling/v1", "HorizontalPodAutoscaler", "served"],
    ["networking.k8s.io/v1", "Ingress", "served"],
    ["batch/v1beta1", "CronJob", "not-served"],
    ["networking.k8s.io/v1beta1", "Ingress", "not-served"],
    ["extensions/v1beta1", "Deployment", "not-served"],
    ["apps/v1beta2", "StatefulSet", "not-served"],
    ["policy/v1beta1", "PodSecurityPolicy", "not-served"],
    ["app/v1", "Deployment", "not-served"],
    ["v1", "Deployment", "not-served"],
    ["apps/v1", "Deploymnet", "unknown-kind"],
    ["v1", "Configmap", "unknown-kind"],
    ["gateway.networking.k8s.io/v1", "Gateway", "custom-resource"],
    ["monitoring.coreos.com/v1", "ServiceMonitor", "custom-resource"],
  ];
  for (const [apiVersion, kind, status] of cases)
    t.equal(matchKind(apiVersion, kind).status, status, `${apiVersion} ${kind}`);
});

t.test("kubectl's words, and what to use instead", async (t) => {
  const say = (apiVersion: string, kind: string) => describeNoMatch(apiVersion, kind, matchKind(apiVersion, kind));
  t.equal(
    say("batch/v1beta1", "CronJob"),
    'no matches for kind "CronJob" in version "batch/v1beta1": batch/v1beta1 CronJob is no longer served since Kubernetes v1.25; use apiVersion batch/v1',
  );
  t.equal(
    say("networking.k8s.io/v1beta1", "Ingress"),
    'no matches for kind "Ingress" in version "networking.k8s.io/v1beta1": networking.k8s.io/v1beta1 Ingress is no longer served since Kubernetes v1.22; use apiVersion networking.k8s.io/v1',
  );
  t.equal(
    say("policy/v1beta1", "PodDisruptionBudget"),
    'no matches for kind "PodDisruptionBudget" in version "policy/v1beta1": policy/v1beta1 PodDisruptionBudget is no longer served since Kubernetes v1.25; use apiVersion policy/v1',
  );
  t.equal(
    say("policy/v1beta1", "PodSecurityPolicy"),
    'no matches for kind "PodSecurityPolicy" in version "policy/v1beta1": policy/v1beta1 PodSecurityPolicy is no longer served since Kubernetes v1.25',
  );
  t.equal(
    say("app/v1", "Deployment"),
    'no matches for kind "Deployment" in version "app/v1": a v1.36 API server serves Deployment at apiVersion apps/v1',
  );
  t.equal(
    say("apps/v1", "Deploymnet"),
    'no matches for kind "Deploymnet" in version "apps/v1": did you mean Deployment?',
  );
  t.equal(say("v1", "configmap"), 'no matches for kind "configmap" in version "v1": did you mean ConfigMap?');
  t.equal(say("v1", "Widget"), 'no matches for kind "Widget" in version "v1"');
});

t.test("every served kind at a version of its own group form", async (t) => {
  for (const [kind, versions] of Object.entries(SERVED_KINDS))
    for (const version of versions) t.match(version, /^([a-z0-9.]+\/)?v\d+$/, `${kind} ${version}`);
});
