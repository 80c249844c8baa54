// The credentials findPullCredentials picks from real Secret shapes, tried against the test
// environment's htpasswd registry over HTTP (no engine, no argv): the right one is accepted, a
// wrong one refused, and the registry's refusal carries nothing the scrubber must remove.
import t from "tap";
import type { Pod, Secret } from "kubernetes-types/core/v1.js";
import { findPullCredentials } from "../../lib/pod/pull-credentials.js";
import { listSecretForms, scrubSecrets } from "../../lib/credentials/scrub.js";
import type { RegistryCredential } from "../../lib/credentials/types.js";
import { requireRegistry, requireTestEnv } from "../harness/engine.js";
import { readRegistryPassword } from "../harness/env.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");

async function askRegistry(
  registry: string,
  credential: RegistryCredential,
): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://${registry}/v2/`, {
    headers: { authorization: `Basic ${b64(`${credential.username}:${credential.password}`)}` },
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, body: await response.text() };
}

t.test("Secrets of every shape yield credentials the registry accepts, in the kubelet's order", async (t) => {
  const testEnv = requireTestEnv(t);
  if (!testEnv) return;
  const registry = await requireRegistry(t, "auth");
  if (!registry) return;
  const { username } = testEnv.auth;
  const password = readRegistryPassword(testEnv);
  const auths = (user: string, pass: string) =>
    JSON.stringify({ auths: { [`https://${registry}/v2/`]: { auth: b64(`${user}:${pass}`) } } });
  const secrets: Secret[] = [
    {
      metadata: { name: "wrong" },
      type: "kubernetes.io/dockerconfigjson",
      stringData: { ".dockerconfigjson": auths(username, "not-the-password") },
    },
    {
      metadata: { name: "data" },
      type: "kubernetes.io/dockerconfigjson",
      data: { ".dockerconfigjson": b64(auths(username, password)) },
    },
    {
      metadata: { name: "legacy" },
      type: "kubernetes.io/dockercfg",
      stringData: { ".dockercfg": JSON.stringify({ [registry]: { username, password: `${password}-legacy` } }) },
    },
  ];
  const pod: Pod = {
    metadata: { name: "private" },
    spec: {
      containers: [{ name: "app", image: testEnv.images.privateBusybox }],
      imagePullSecrets: secrets.map((s) => ({ name: s.metadata!.name! })),
    },
  };
  const credentials = findPullCredentials({
    pod,
    objects: { configMaps: [], secrets },
    image: testEnv.images.privateBusybox,
  });
  t.same(
    credentials.map((c) => [c.source, c.registry]),
    [
      ['secret "wrong"', registry],
      ['secret "data"', registry],
      ['secret "legacy"', registry],
    ],
  );

  const [wrong, right] = credentials;
  const refused = await askRegistry(registry, wrong!);
  t.equal(refused.status, 401, "the first (wrong) credential is refused");
  t.equal((await askRegistry(registry, right!)).status, 200, "the second is accepted");
  const forms = listSecretForms(credentials);
  t.equal(scrubSecrets(refused.body, forms), refused.body, "the registry's refusal echoes no secret");
  t.notOk(
    scrubSecrets(`${password} ${b64(`${username}:${password}`)}`, forms).includes(password),
    "the scrubber removes the real password",
  );
});
