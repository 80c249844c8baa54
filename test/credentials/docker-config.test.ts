import t from "tap";
import {
  decodeAuthField,
  DockerConfigError,
  parseDockercfg,
  parseDockerConfigJson,
} from "../../lib/credentials/docker-config.js";
import { readSecretDockerConfig } from "../../lib/pod/pull-credentials.js";

const b64 = (text: string) => Buffer.from(text).toString("base64");
const catchError = (fn: () => unknown): Error | undefined => {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  return undefined;
};
const entry = (username: string, password: string, email = "") => ({ username, password, email });

t.test("decodeAuthField: padded or not, as the kubelet picks its decoder", async (t) => {
  t.same(decodeAuthField(b64("user:pass")), { username: "user", password: "pass" });
  t.same(decodeAuthField(b64("ab:cd")), { username: "ab", password: "cd" }, "padded");
  t.same(decodeAuthField(b64("ab:cd").replace(/=+$/, "")), { username: "ab", password: "cd" }, "unpadded");
  t.same(decodeAuthField(b64("user:pa:ss")), { username: "user", password: "pa:ss" }, "split at the first colon");
  t.same(
    decodeAuthField(`${b64("user:pass").slice(0, 4)}\n${b64("user:pass").slice(4)}`),
    { username: "user", password: "pass" },
    "newlines ignored",
  );
  const errors: [field: string, message: string][] = [
    [b64("nocolon"), "unable to parse auth field, must be formatted as base64(username:password)"],
    ["not base64!", "illegal base64 data at input byte 3"],
    ["abcde", "illegal base64 data at input byte 4"],
    ["YWJjZA=", "illegal base64 data at input byte 7"],
  ];
  for (const [field, message] of errors)
    t.throws(() => decodeAuthField(field), new DockerConfigError(message), message);
});

t.test("parseDockerConfigJson", async (t) => {
  const auths = {
    "https://index.docker.io/v1/": { auth: b64("hub:hubpw"), email: "me@example.com" },
    "registry.example.com": { username: "u", password: "p" },
    // auth wins over username/password, as the kubelet overwrites both
    "other.example.com": { username: "ignored", password: "ignored", auth: b64("a:b") },
    "empty.example.com": {},
    "null.example.com": null,
  };
  t.same(parseDockerConfigJson(JSON.stringify({ auths, HttpHeaders: { "User-Agent": "x" }, credsStore: "desktop" })), [
    ["https://index.docker.io/v1/", entry("hub", "hubpw", "me@example.com")],
    ["registry.example.com", entry("u", "p")],
    ["other.example.com", entry("a", "b")],
    ["empty.example.com", entry("", "")],
    ["null.example.com", entry("", "")],
  ]);
  t.same(
    parseDockerConfigJson('{"Auths": {"r": {"Username": "U", "PASSWORD": "P"}}}'),
    [["r", entry("U", "P")]],
    "field names case-insensitive, as encoding/json",
  );
  t.same(parseDockerConfigJson("{}"), [], "no auths");
  t.same(parseDockerConfigJson("null"), []);
  t.same(parseDockerConfigJson('{"auths": null}'), []);
  const errors: [text: string, message: string][] = [
    ["{not json", "invalid JSON"],
    ['"secret-text"', "json: cannot unmarshal string into Go value of type credentialprovider.DockerConfigJSON"],
    [
      '{"auths": []}',
      "json: cannot unmarshal array into Go struct field DockerConfigJSON.auths of type credentialprovider.DockerConfig",
    ],
    [
      '{"auths": {"r": "x"}}',
      "json: cannot unmarshal string into Go value of type credentialprovider.dockerConfigEntryWithAuth",
    ],
    [
      '{"auths": {"r": {"password": 5}}}',
      "json: cannot unmarshal number into Go struct field dockerConfigEntryWithAuth.password of type string",
    ],
    [
      '{"auths": {}, "HttpHeaders": {"a": true}}',
      "json: cannot unmarshal bool into Go struct field DockerConfigJSON.HttpHeaders.a of type string",
    ],
    [
      `{"auths": {"r": {"auth": "${b64("nocolon")}"}}}`,
      "unable to parse auth field, must be formatted as base64(username:password)",
    ],
  ];
  for (const [text, message] of errors)
    t.throws(() => parseDockerConfigJson(text), new DockerConfigError(message), message);
});

t.test("an error never carries a value", async (t) => {
  const secret = "hunter2-very-secret";
  for (const text of [
    `{"auths": {"r": {"auth": "${secret}"}}}`,
    `{"auths": "${secret}"`,
    `{"auths": {"r": {"password": ["${secret}"]}}}`,
  ]) {
    const error = catchError(() => parseDockerConfigJson(text));
    t.ok(error && !error.message.includes("hunter2"), text);
  }
});

t.test("parseDockercfg: the bare map", async (t) => {
  t.same(parseDockercfg(JSON.stringify({ "registry.example.com": { auth: b64("u:p"), email: "e" } })), [
    ["registry.example.com", entry("u", "p", "e")],
  ]);
  t.throws(
    () => parseDockercfg("[]"),
    new DockerConfigError("json: cannot unmarshal array into Go value of type credentialprovider.DockerConfig"),
  );
});

t.test("readSecretDockerConfig: only the two pull-secret types, each with its own key", async (t) => {
  const json = JSON.stringify({ auths: { r: { username: "u", password: "p" } } });
  const cfg = JSON.stringify({ r: { username: "u", password: "p" } });
  const expected = [["r", entry("u", "p")]];
  t.same(
    readSecretDockerConfig({ type: "kubernetes.io/dockerconfigjson", data: { ".dockerconfigjson": b64(json) } }),
    expected,
    "data",
  );
  t.same(
    readSecretDockerConfig({ type: "kubernetes.io/dockerconfigjson", stringData: { ".dockerconfigjson": json } }),
    expected,
    "stringData",
  );
  t.same(
    readSecretDockerConfig({
      type: "kubernetes.io/dockerconfigjson",
      data: { ".dockerconfigjson": b64("{}") },
      stringData: { ".dockerconfigjson": json },
    }),
    expected,
    "stringData over data",
  );
  t.same(
    readSecretDockerConfig({ type: "kubernetes.io/dockercfg", data: { ".dockercfg": b64(cfg) } }),
    expected,
    "legacy dockercfg",
  );
  t.equal(
    readSecretDockerConfig({ type: "Opaque", stringData: { ".dockerconfigjson": json } }),
    undefined,
    "another type",
  );
  t.equal(readSecretDockerConfig({ stringData: { ".dockerconfigjson": json } }), undefined, "no type");
  t.equal(
    readSecretDockerConfig({ type: "kubernetes.io/dockercfg", stringData: { ".dockerconfigjson": json } }),
    undefined,
    "the other type's key",
  );
  t.equal(
    readSecretDockerConfig({ type: "kubernetes.io/dockerconfigjson", stringData: { ".dockerconfigjson": "" } }),
    undefined,
    "empty",
  );
  t.throws(
    () => readSecretDockerConfig({ type: "kubernetes.io/dockerconfigjson", stringData: { ".dockerconfigjson": "[" } }),
    DockerConfigError,
  );
});
