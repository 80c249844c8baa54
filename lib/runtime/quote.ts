// A command line as a POSIX shell would read it back: for --dry-run output, which users copy and
// run. Unlike formatCommand (messages), nothing is shortened.
export function quoteCommand(binary: string, args: readonly string[], env: Record<string, string> = {}): string {
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${quoteArgument(value)}`);
  return [...assignments, ...[binary, ...args].map(quoteArgument)].join(" ");
}

export function quoteArgument(arg: string): string {
  if (arg !== "" && /^[\w@%+=:,./~…-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}
