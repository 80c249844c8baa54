import t from "tap";
import { errorFirstLine, errorMessage, PodrunError } from "../lib/errors.js";

t.test("errorMessage reads anything thrown as text", async (t) => {
  const cases: [string, unknown, string][] = [
    ["an Error", new Error("boom"), "boom"],
    ["a subclass", new PodrunError("RunContainerError", "container app: exit 1"), "container app: exit 1"],
    ["an Error without a message", new Error(), ""],
    ["a string", "plain text", "plain text"],
    ["a number", 42, "42"],
    ["undefined", undefined, "undefined"],
    ["null", null, "null"],
    ["an object", { code: "EACCES" }, "[object Object]"],
    ["a multi-line message, whole", new Error("first\nsecond"), "first\nsecond"],
  ];
  for (const [name, error, want] of cases) t.equal(errorMessage(error), want, name);
});

t.test("errorFirstLine keeps the first line of the message", async (t) => {
  const cases: [string, unknown, string][] = [
    ["one line", new Error("boom"), "boom"],
    ["several lines", new Error("open /x: permission denied\n    at stack\n"), "open /x: permission denied"],
    ["a leading line break", new Error("\nsecond"), ""],
    ["a CRLF is cut at the LF only", new Error("a\r\nb"), "a\r"],
    ["an empty message", new Error(""), ""],
    ["a string", "one\ntwo", "one"],
    ["a number", 7, "7"],
  ];
  for (const [name, error, want] of cases) t.equal(errorFirstLine(error), want, name);
});
