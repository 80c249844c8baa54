import t from "tap";
import { listSecretForms, scrubSecrets } from "../../lib/credentials/scrub.js";
import type { RegistryCredential } from "../../lib/credentials/types.js";

const credential: RegistryCredential = {
  username: "ci",
  password: 's3cr%t"pw',
  registry: "127.0.0.1:5101",
  source: 'secret "regcred"',
};
const forms = listSecretForms([credential]);
const b64 = (text: string) => Buffer.from(text).toString("base64");

t.test("every form of the secret is redacted", async (t) => {
  const cases: [text: string, expected: string][] = [
    ['Error: unauthorized: password s3cr%t"pw rejected', "Error: unauthorized: password <redacted> rejected"],
    ['login ci:s3cr%t"pw failed', "login <redacted> failed"],
    [`auth ${b64('ci:s3cr%t"pw')} bad`, "auth <redacted> bad"],
    [`auth ${b64('ci:s3cr%t"pw').replace(/=+$/, "")}`, "auth <redacted>"],
    [
      `GET https://ci:${encodeURIComponent('s3cr%t"pw')}@127.0.0.1:5101/v2/`,
      "GET https://ci:<redacted>@127.0.0.1:5101/v2/",
    ],
    ['{"password":"s3cr%t\\"pw"}', '{"password":"<redacted>"}'],
    ["nothing secret here", "nothing secret here"],
  ];
  for (const [text, expected] of cases) t.equal(scrubSecrets(text, forms), expected, expected);
});

t.test("empty secrets and no credentials change nothing", async (t) => {
  t.equal(scrubSecrets("abc", ["", ""]), "abc");
  t.same(listSecretForms([{ ...credential, password: "" }]), []);
  t.equal(scrubSecrets("abc", listSecretForms([])), "abc");
});

t.test("the longest form goes first, so a pair is redacted whole", async (t) => {
  t.equal(scrubSecrets("x pw:pwpw y", ["pw", "pw:pwpw"]), "x <redacted> y");
});
