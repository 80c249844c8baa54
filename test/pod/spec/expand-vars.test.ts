import t from "tap";
import { envLookup, expandVars } from "../../../lib/pod/spec/expand-vars.js";

// The kubelet's own cases (third_party/forked/golang/expansion/expand_test.go, doExpansionTest).
const context: Record<string, string> = { VAR_A: "A", VAR_B: "B", VAR_C: "C", VAR_REF: "$(VAR_A)", VAR_EMPTY: "" };
const lookup = (name: string) => (Object.hasOwn(context, name) ? context[name] : undefined);

const cases: [name: string, input: string, expected: string][] = [
  ["whole string", "$(VAR_A)", "A"],
  ["repeat", "$(VAR_A)-$(VAR_A)", "A-A"],
  ["beginning", "$(VAR_A)-1", "A-1"],
  ["middle", "___$(VAR_B)___", "___B___"],
  ["end", "___$(VAR_C)", "___C"],
  ["compound", "$(VAR_A)_$(VAR_B)_$(VAR_C)", "A_B_C"],
  ["escape & expand", "$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"],
  ["compound escape", "$$(VAR_A)_$$(VAR_B)", "$(VAR_A)_$(VAR_B)"],
  ["mixed in escapes", "f000-$$VAR_A", "f000-$VAR_A"],
  ["backslash escape ignored", "foo\\$(VAR_C)bar", "foo\\Cbar"],
  ["backslash escape ignored (two)", "foo\\\\$(VAR_C)bar", "foo\\\\Cbar"],
  ["lots of backslashes", "foo\\\\\\\\$(VAR_A)bar", "foo\\\\\\\\Abar"],
  ["nested var references", "$(VAR_A$(VAR_B))", "$(VAR_A$(VAR_B))"],
  ["nested var references second type", "$(VAR_A$(VAR_B)", "$(VAR_A$(VAR_B)"],
  ["value is a reference", "$(VAR_REF)", "$(VAR_A)"],
  ["value is a reference x 2", "%%$(VAR_REF)--$(VAR_REF)%%", "%%$(VAR_A)--$(VAR_A)%%"],
  ["empty var", "foo$(VAR_EMPTY)bar", "foobar"],
  ["unterminated expression", "foo$(VAR_Awhoops!", "foo$(VAR_Awhoops!"],
  ["expression without operator", "f00__(VAR_A)__", "f00__(VAR_A)__"],
  ["shell special vars pass through", "$?_boo_$!", "$?_boo_$!"],
  ["bare operators are ignored", "$VAR_A", "$VAR_A"],
  ["undefined vars are passed through", "$(VAR_DNE)", "$(VAR_DNE)"],
  ["multiple (even) operators, var undefined", "$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"],
  ["multiple (even) operators, var defined", "$$$$$$(VAR_A)", "$$$(VAR_A)"],
  ["multiple (odd) operators, var undefined", "$$$$$$$(GOOD_ODDS)", "$$$$(GOOD_ODDS)"],
  ["multiple (odd) operators, var defined", "$$$$$$$(VAR_A)", "$$$A"],
  ["missing open expression", "$VAR_A)", "$VAR_A)"],
  ["shell syntax ignored", "${VAR_A}", "${VAR_A}"],
  ["trailing incomplete expression not consumed", "$(VAR_B)_______$(A", "B_______$(A"],
  ["trailing incomplete expression, no content, is not consumed", "$(VAR_C)_______$(", "C_______$("],
  ["operator at end of input string is preserved", "$(VAR_A)foobarzab$", "Afoobarzab$"],
  ["shell escaped incomplete expr", "foo-\\$(VAR_A", "foo-\\$(VAR_A"],
  ["lots of $( in middle", "--$($($($($--", "--$($($($($--"],
  ["lots of $( in beginning", "$($($($($--foo$(", "$($($($($--foo$("],
  ["lots of $( at end", "foo0--$($($($(", "foo0--$($($($("],
  ["escaped operators in variable names are not escaped", "$(foo$$var)", "$(foo$$var)"],
  ["newline not expanded", "\n", "\n"],
  // podrun's own additions.
  ["empty input", "", ""],
  ["lone operator", "$", "$"],
  ["non-ASCII around a reference", "é$(VAR_A)😀$😀", "éA😀$😀"],
  ["empty name is looked up and stays when undefined", "$()", "$()"],
];

t.test("expansion: the kubelet's cases", async (t) => {
  for (const [name, input, expected] of cases) t.equal(expandVars(input, lookup), expected, name);
});

t.test("envLookup: later entries win, chained definitions expand in order (TestMapReference)", async (t) => {
  const declared: { name: string; value: string }[] = [];
  for (const { name, value } of [
    { name: "FOO", value: "bar" },
    { name: "ZOO", value: "$(FOO)-1" },
    { name: "BLU", value: "$(ZOO)-2" },
  ]) {
    declared.push({ name, value: expandVars(value, envLookup(declared)) });
  }
  t.same(
    declared.map((e) => e.value),
    ["bar", "bar-1", "bar-1-2"],
  );
  const look = envLookup([
    { name: "X", value: "1" },
    { name: "X", value: "2" },
  ]);
  t.equal(look("X"), "2");
  t.equal(look("Y"), undefined);
});
