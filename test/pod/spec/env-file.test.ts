// The kubelet's env-file reader (single-quoted values), as a table: values, and the errors.
import t from "tap";
import { parseEnvFile } from "../../../lib/pod/spec/env-file.js";

t.test("values", async (t) => {
  const file = [
    "# settings",
    "",
    "DB_ADDRESS='address'",
    "  REST_ENDPOINT='endpoint' # indented, with a comment",
    "MULTI='one",
    "two'",
    "LITERAL='$HOME \\n \"x\"'",
    "EMPTY=''",
    "BLANK= 'ignored'",
    "DB_ADDRESS='second'",
    "WITH_EQUALS='a=b'",
    "CRLF='yes'\r",
  ].join("\n");
  const cases: [string, string][] = [
    ["DB_ADDRESS", "address"],
    ["REST_ENDPOINT", "endpoint"],
    ["MULTI", "one\ntwo"],
    ["LITERAL", '$HOME \\n "x"'],
    ["EMPTY", ""],
    ["BLANK", ""],
    ["WITH_EQUALS", "a=b"],
    ["CRLF", "yes"],
    ["MISSING", ""],
  ];
  for (const [key, value] of cases) t.equal(parseEnvFile(file, key), value, key);
  t.equal(parseEnvFile("A='1'\nB=unquoted\n", "A"), "1", "an error after the key is not reached");
});

t.test("errors, with the line", async (t) => {
  const cases: [string, string][] = [
    ["A='1'\nnonsense\nKEY='v'", "invalid environment variable format at line 2: missing '='"],
    ["='v'\nKEY='v'", "invalid environment variable format at line 1: empty variable name"],
    ["A ='v'\nKEY='v'", "invalid environment variable format at line 1: whitespace before '=' is not allowed"],
    ["A=v\nKEY='v'", "invalid environment variable format at line 1: value must be enclosed in single quotes"],
    ["A=\"v\"\nKEY='v'", "invalid environment variable format at line 1: value must be enclosed in single quotes"],
    ["A='v' x\nKEY='v'", "invalid environment variable format at line 1: unexpected content after closing quote"],
    ["A='v\n\nKEY=v", "invalid environment variable format starting at line 1: unclosed single quote"],
  ];
  for (const [file, message] of cases) t.throws(() => parseEnvFile(file, "KEY"), { message }, message);
});
