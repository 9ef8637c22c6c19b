// `npm run bench:startup`: start time and resident memory of each process, compiled (`npm run build`'s dist/,
// plain node) against the sources through tsx (`npm start`). A run starts the embedded database in a process of
// its own on a fresh DATA_DIR, then wallet, engine and gateway one after another, each once the one before is
// ready, so no start competes with another. Start time: from the spawn to the process's "<service> listening"
// log line (it logs it once its listeners serve and, for the engine, its shard threads run). Memory: the
// resident set of the process and of any process it started (tsx's esbuild service), one second after that
// line. The forms alternate run by run; the table gives the median of RUNS runs (default 5) and the range.
// Usage: RUNS=5 npm run bench:startup   (docs/performance.md, "Compiled services")
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isEntryPoint } from "../kernel/process.js";
import { startEmbeddedDatabaseProcess } from "../test/harness/embedded.js";
import { freePort } from "../test/harness/ports.js";
import { ROOT, buildServices } from "./build.js";

const SERVICES = ["wallet", "engine", "gateway"] as const;
type Service = (typeof SERVICES)[number];
const FORMS = {
  compiled: (service: Service): string[] => [path.join(ROOT, "dist", service, "main.js")],
  tsx: (service: Service): string[] => ["--import", "tsx", path.join(ROOT, service, "main.ts")],
} as const;
type Form = keyof typeof FORMS;

interface Sample {
  startMs: number;
  rssMiB: number;
}

/** Resident memory (MiB) of `pid` and of every process below it, from /proc. */
function treeRssMiB(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  let kib = 0;
  const visit = (id: number): void => {
    try {
      const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${id}/status`, "utf8"));
      kib += Number(match?.[1] ?? 0);
    } catch {
      return;
    }
    for (const child of children.get(id) ?? []) visit(child);
  };
  visit(pid);
  return kib / 1024;
}

/** Starts `service` in `form`; resolves at its "listening" line with the time taken, then its memory. */
async function startOne(form: Form, service: Service, env: NodeJS.ProcessEnv): Promise<[ChildProcess, Sample]> {
  const started = performance.now();
  const child = spawn(process.execPath, FORMS[form](service), { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const startMs = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`"msg":"${service} listening"`)) resolve(performance.now() - started);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once("exit", (code) => {
      reject(new Error(`${service} (${form}) exited with ${String(code)}:\n${output}`));
    });
  });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return [child, { startMs, rssMiB: treeRssMiB(child.pid ?? 0) }];
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** One run of the three processes in `form` on a fresh embedded database. */
async function runOnce(form: Form): Promise<Record<Service, Sample>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "fts-bench-startup-"));
  const database = await startEmbeddedDatabaseProcess(dataDir);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    INTERNAL_TOKEN: randomBytes(24).toString("base64url"),
    LOG_LEVEL: "info",
  };
  for (const name of ["HTTP_PORT", "WALLET_HTTP_PORT", "ENGINE_GRPC_PORT", "WALLET_GRPC_PORT"]) {
    env[name] = String(await freePort());
  }
  for (const name of ["ENGINE_METRICS_PORT", "WALLET_METRICS_PORT"]) env[name] = String(await freePort());
  const children: ChildProcess[] = [];
  const samples: Partial<Record<Service, Sample>> = {};
  try {
    for (const service of SERVICES) {
      const [child, sample] = await startOne(form, service, env);
      children.push(child);
      samples[service] = sample;
    }
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return samples as Record<Service, Sample>;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

function cell(values: number[], digits: number): string {
  const range = `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
  return `${median(values).toFixed(digits)} (${range})`;
}

async function main(): Promise<void> {
  const runs = Number(process.env.RUNS ?? 5);
  buildServices(path.join(ROOT, "dist"), { typeCheck: false });
  const samples: Record<Form, Record<Service, Sample[]>> = {
    compiled: { wallet: [], engine: [], gateway: [] },
    tsx: { wallet: [], engine: [], gateway: [] },
  };
  for (let run = 0; run < runs; run++) {
    const order: Form[] = run % 2 === 0 ? ["compiled", "tsx"] : ["tsx", "compiled"];
    for (const form of order) {
      const result = await runOnce(form);
      for (const service of SERVICES) samples[form][service].push(result[service]);
      process.stderr.write(`run ${run + 1}/${runs} ${form}: ${JSON.stringify(result)}\n`);
    }
  }
  const lines = [
    `node ${process.version}, ${runs} runs each; median (min–max)`,
    "",
    "| process | start, compiled (ms) | start, tsx (ms) | memory, compiled (MiB) | memory, tsx (MiB) |",
    "|---|---:|---:|---:|---:|",
    ...SERVICES.map((service) => {
      const [compiled, tsx] = [samples.compiled[service], samples.tsx[service]];
      const start = (list: Sample[]): number[] => list.map((s) => s.startMs);
      const rss = (list: Sample[]): number[] => list.map((s) => s.rssMiB);
      return `| ${service} | ${cell(start(compiled), 0)} | ${cell(start(tsx), 0)} | ${cell(rss(compiled), 0)} | ${cell(rss(tsx), 0)} |`;
    }),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

if (isEntryPoint(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `bench:startup failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
