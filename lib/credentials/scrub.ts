import type { RegistryCredential } from "./types.js";

// Registry and engine error texts may echo what they were given: a password, the `auth` field
// built from it, a URL with credentials in it. Every such text is scrubbed before it reaches an
// event, the back-off file or a message.

export const REDACTED = "<redacted>";

/** Every form in which the credentials' secrets may show up in a text: password, user:pass and their base64, URL and JSON escapes. */
export function listSecretForms(credentials: readonly RegistryCredential[]): string[] {
  const forms = new Set<string>();
  for (const { username, password } of credentials) {
    if (!password) continue;
    const pair = `${username}:${password}`;
    for (const text of [password, pair]) {
      const base64 = Buffer.from(text, "utf8").toString("base64");
      forms.add(text);
      forms.add(base64);
      forms.add(base64.replace(/=+$/, ""));
      forms.add(encodeURIComponent(text));
      forms.add(JSON.stringify(text).slice(1, -1));
    }
  }
  return [...forms];
}

/** `text` with each of `secrets` (e.g. from listSecretForms) replaced by `<redacted>`, the longest first so a pair goes whole. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  const ordered = [...new Set(secrets)].filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length);
  let scrubbed = text;
  for (const secret of ordered) scrubbed = scrubbed.split(secret).join(REDACTED);
  return scrubbed;
}
