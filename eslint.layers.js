// The layers of lib/ (docs/architecture.md draws them), lowest first: a module may import its own
// folder and the folders of the layers below its own, never above or beside. `npm run lint`
// fails on an import that breaks this (eslint-plugin-boundaries, resolving TypeScript's paths).
import boundaries from "eslint-plugin-boundaries";

export const LAYERS = [
  ["errors"], // lib/errors.ts: the error classes and exit codes; imports nothing
  ["process", "resources", "text"], // signals and aborts; Kubernetes quantities; the words of messages
  ["state"], // the state directory: lock, atomic writes, back-off arithmetic and store
  ["events"], // the event model, recorder and log
  ["credentials"], // registry credentials: docker config files, the keyring, scrubbing
  ["runtime"], // the engine boundary: ContainerRuntime and its CLI implementation
  ["images", "probes"], // the kubelet's image manager; one probe attempt of each kind
  ["manifest"], // manifests read as kubectl reads them, validated as the API server does
  ["pod"], // the kubelet's part: reconcile, volumes, start, the prober (readiness/), stop, status
  ["workloads"], // the controllers: pods from templates, the Job controller
  ["services"], // Services: their endpoints, the env vars they give pods, their proxy's config and containers
  ["kinds"], // the one table of kinds
  ["apply"], // the run of up and down: order, outcomes
  ["output"], // what reaches the terminal
  ["commands"], // one module per verb: flags -> options -> call -> print
  ["cli"], // lib/cli.ts: commander's declarations, exit codes
];

const FILES = new Set(["errors", "cli"]);

export const layerRules = [
  {
    files: ["lib/**/*.ts"],
    plugins: { boundaries },
    settings: {
      "boundaries/elements": LAYERS.flat().map((name) => ({
        type: name,
        // Two layers are one file each: `mode: "file"` (v7 still honours it, and warns of a
        // deprecation that legacy-warnings below keeps quiet; the plugin is pinned).
        ...(FILES.has(name) ? { pattern: `lib/${name}.ts`, mode: "file" } : { pattern: `lib/${name}` }),
      })),
      "boundaries/legacy-warnings": false,
      "import/resolver": { typescript: { alwaysTryTypes: true } },
    },
    rules: {
      // Every file of lib/ belongs to a layer, and so does everything it imports from lib/.
      "boundaries/no-unknown-files": "error",
      "boundaries/no-unknown-dependencies": "error",
      "boundaries/dependencies": [
        "error",
        {
          default: "disallow",
          policies: LAYERS.flatMap((layer, i) =>
            layer.map((name) => ({
              from: { element: { type: name } },
              allow: { to: { element: { types: { anyOf: [name, ...LAYERS.slice(0, i).flat()] } } } },
            })),
          ),
        },
      ],
    },
  },
];
