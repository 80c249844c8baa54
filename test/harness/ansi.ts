// Colour in captured output: tests compare coloured text with the plain text under it.

// eslint-disable-next-line no-control-regex -- matches ESC, the start of every colour code
const SGR = /\u001b\[\d+m/g;

/** The text without its colour codes (`ESC[33m` … `ESC[39m`, all chalk writes). */
export function stripColor(text: string): string {
  return text.replace(SGR, "");
}
