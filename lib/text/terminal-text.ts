// Text that came from elsewhere (a registry's error, a file anyone can edit) made safe for one
// table cell, the way kubectl's printers treat it: one line, and no control characters that a
// terminal would act on.

/** Trimmed and cut at the first line break, with "..." to show there is more. */
export function toOneLine(text: string): string {
  const trimmed = text.trim();
  const cut = trimmed.search(/[\n\r\f]/);
  return cut < 0 ? trimmed : `${trimmed.slice(0, cut).trimEnd()}...`;
}

/** Control characters in caret notation (ESC as ^[, as kubectl does); a tab becomes a space. */
export function escapeControlCharacters(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (c) =>
    c === "\t" ? " " : `^${String.fromCharCode(c.charCodeAt(0) ^ 0x40)}`,
  );
}
