// Measures what the schema check costs `podrun validate` at start-up: the size of the generated
// schema, and in fresh Node processes the time to import schema.ts (compiled to JS, as dist/ runs
// it) and to check a realistic Pod. It also times other ways to ship the same schema, which is
// why schema.generated.ts holds JSON.parse(`...`) rather than a .json file or an object literal.
// Run: npx tsx bench/schema-load.ts [runs]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import ts from "typescript";

const RUNS = Number(process.argv[2] ?? 15);
const LIB = fileURLToPath(new URL("../lib/manifest/", import.meta.url));
const GENERATED = join(LIB, "schema.generated.ts");

// The JSON payload of the generated module (it contains no escaped characters).
const text = readFileSync(GENERATED, "utf8");
const json = text.slice(text.indexOf("JSON.parse(`") + "JSON.parse(`".length, text.lastIndexOf("`)"));
const schema = JSON.parse(json) as { types: Record<string, { f: object }> };

// Runs in a fresh process: imports the checker, checks the Pod once cold and 200 times warm.
const CHILD = `
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const pod = JSON.parse(readFileSync(process.argv[3], "utf8"));
const t0 = performance.now();
const { checkSchema } = await import(pathToFileURL(process.argv[2]).href);
const t1 = performance.now();
let errors = 0;
checkSchema(pod, "Pod", () => errors++);
const t2 = performance.now();
for (let i = 0; i < 200; i++) checkSchema(pod, "Pod", () => {});
const t3 = performance.now();
process.stdout.write(JSON.stringify({ import: t1 - t0, first: t2 - t1, warm: (t3 - t2) / 200, errors }));
`;

const work = mkdtempSync(join(tmpdir(), "podrun-schema-bench-"));
try {
  const pod = join(work, "pod.json");
  writeFileSync(pod, JSON.stringify(realisticPod()));
  const child = join(work, "child.mjs");
  writeFileSync(child, CHILD);

  // One directory per way of shipping the schema; the checker and its imports are the same.
  const variants: Record<string, (dir: string) => void> = {
    "no schema at all (the checker's modules alone)": (dir) =>
      writeFileSync(join(dir, "schema.generated.js"), 'export const SCHEMA = { source: "", roots: {}, types: {} };\n'),
    "JSON.parse(`...`) in a module (shipped)": (dir) =>
      writeFileSync(join(dir, "schema.generated.js"), transpile(text)),
    "object literal in a module": (dir) =>
      writeFileSync(join(dir, "schema.generated.js"), `export const SCHEMA = ${json};\n`),
    ".json + readFileSync + JSON.parse": (dir) => {
      writeFileSync(join(dir, "schema.json"), json);
      writeFileSync(
        join(dir, "schema.generated.js"),
        'import { readFileSync } from "node:fs";\nexport const SCHEMA = JSON.parse(readFileSync(new URL("./schema.json", import.meta.url), "utf8"));\n',
      );
    },
    ".json imported with { type: 'json' }": (dir) => {
      writeFileSync(join(dir, "schema.json"), json);
      writeFileSync(
        join(dir, "schema.generated.js"),
        'import data from "./schema.json" with { type: "json" };\nexport const SCHEMA = data;\n',
      );
    },
  };

  console.log(
    `schema: ${Object.keys(schema.types).length} types, ${Object.values(schema.types).reduce((n, t) => n + Object.keys(t.f).length, 0)} fields`,
  );
  console.log(
    `lib/manifest/schema.generated.ts: ${kb(Buffer.byteLength(text))} (JSON ${kb(json.length)}, gzip ${kb(gzipSync(json).length)})`,
  );
  console.log(`median of ${RUNS} fresh node processes, ms:`);
  console.log(`  ${"variant".padEnd(48)} import  first check  warm check`);
  for (const [name, write] of Object.entries(variants)) {
    const dir = join(work, String(Object.keys(variants).indexOf(name)));
    execFileSync("mkdir", ["-p", dir]);
    for (const file of ["schema.ts", "field-path.ts", "field-error.ts"]) {
      writeFileSync(join(dir, file.replace(/\.ts$/, ".js")), transpile(readFileSync(join(LIB, file), "utf8")));
    }
    write(dir);
    const samples = Array.from({ length: RUNS }, () => {
      const out = execFileSync(process.execPath, [child, join(dir, "schema.js"), pod], { encoding: "utf8" });
      return JSON.parse(out) as Record<"import" | "first" | "warm" | "errors", number>;
    });
    if (samples.some((s) => s.errors !== 0)) throw new Error(`${name}: the realistic Pod has schema errors`);
    const med = (key: "import" | "first" | "warm") =>
      median(samples.map((s) => s[key]))
        .toFixed(2)
        .padStart(6);
    console.log(`  ${name.padEnd(48)} ${med("import")}  ${med("first")}       ${med("warm")}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

function transpile(source: string): string {
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** A Pod of the size and variety of real ones (two containers, probes, volumes, affinity). */
function realisticPod(): object {
  const probe = (path: string) => ({
    httpGet: { path, port: "http" },
    initialDelaySeconds: 5,
    periodSeconds: 10,
    failureThreshold: 3,
  });
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "shop",
      namespace: "prod",
      labels: { app: "shop", tier: "web" },
      annotations: { "prometheus.io/scrape": "true" },
    },
    spec: {
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      terminationGracePeriodSeconds: 30,
      securityContext: {
        runAsUser: 1000,
        runAsNonRoot: true,
        fsGroup: 2000,
        seccompProfile: { type: "RuntimeDefault" },
      },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "disktype", operator: "In", values: ["ssd"] }] }],
          },
        },
      },
      tolerations: [{ key: "dedicated", operator: "Equal", value: "shop", effect: "NoSchedule" }],
      initContainers: [
        {
          name: "migrate",
          image: "shop/migrate:1",
          command: ["/bin/migrate"],
          envFrom: [{ secretRef: { name: "db" } }],
        },
        {
          name: "logs",
          image: "fluent-bit:3",
          restartPolicy: "Always",
          resources: { requests: { cpu: "50m", memory: "32Mi" } },
        },
      ],
      containers: [
        {
          name: "web",
          image: "shop/web:1",
          imagePullPolicy: "IfNotPresent",
          ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
          env: [
            { name: "MODE", value: "production" },
            { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
            { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
          ],
          resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: 1, memory: "512Mi" } },
          livenessProbe: probe("/healthz"),
          readinessProbe: probe("/ready"),
          lifecycle: { preStop: { sleep: { seconds: 5 } } },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ["ALL"] },
          },
          volumeMounts: [
            { name: "config", mountPath: "/etc/shop", readOnly: true },
            { name: "data", mountPath: "/data" },
            { name: "cache", mountPath: "/cache" },
          ],
        },
        { name: "sidecar", image: "shop/grpc:2", livenessProbe: { grpc: { port: 9000 } } },
      ],
      volumes: [
        { name: "config", configMap: { name: "shop-config", items: [{ key: "app.conf", path: "app.conf" }] } },
        { name: "data", persistentVolumeClaim: { claimName: "shop-data" } },
        { name: "cache", emptyDir: { medium: "Memory", sizeLimit: "256Mi" } },
        { name: "secrets", secret: { secretName: "db", defaultMode: 256 } },
      ],
    },
  };
}
