import chalk, { type ChalkInstance } from "chalk";

// chalk (supports-color) honours FORCE_COLOR, --color and TTY detection but deliberately not
// NO_COLOR (chalk/supports-color#74), so that check lives here: any non-empty NO_COLOR wins,
// except an explicit FORCE_COLOR, which is the user asking for colour anyway.
export function configureColor(env: NodeJS.ProcessEnv = process.env): ChalkInstance {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
  if (env.NO_COLOR && !forced) chalk.level = 0;
  return chalk;
}
