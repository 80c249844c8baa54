import t from "tap";
import { escapeControlCharacters, toOneLine } from "../../lib/text/terminal-text.js";

t.test("toOneLine keeps the first line and marks the cut", async (t) => {
  t.equal(toOneLine("  ErrImagePull: not found  "), "ErrImagePull: not found");
  t.equal(toOneLine("first \nsecond"), "first...");
  t.equal(toOneLine("a\r\nb"), "a...");
});

t.test("escapeControlCharacters shows control characters in caret notation", async (t) => {
  t.equal(escapeControlCharacters("plain"), "plain");
  t.equal(escapeControlCharacters("\u001b[31mred\u001b[0m"), "^[[31mred^[[0m");
  t.equal(escapeControlCharacters("a\tb\u0007\u007f"), "a b^G^?");
});
