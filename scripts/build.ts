// `npm run build`: compiles the services (tsconfig.build.json: the three processes, the supervisor of
// scripts/start.ts, the shard thread and the trading core it loads) to JavaScript in dist/, then copies beside
// the compiled modules every other file the processes read at run time (.proto files, SQL migrations), at the
// same place relative to them as in the sources (kernel/module-file.ts). `node dist/scripts/start.js` or
// `node dist/<service>/main.js` then runs with production dependencies only, no tsx.
// Usage: node --import tsx scripts/build.ts [outDir]   (default dist/)
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isEntryPoint } from "../kernel/process.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The folders the compiled processes import from. */
export const SERVICE_FOLDERS = ["kernel", "wallet", "engine", "gateway", "proto"] as const;

/** Modules, compiled by tsc (.ts), or the sources' own shard-thread bootstrap that registers tsx (.mjs). */
const MODULE_FILE = /\.(ts|mjs)$/;

/** The files of the service folders that are not modules (paths relative to the repository), sorted. */
export function runtimeAssets(): string[] {
  return SERVICE_FOLDERS.flatMap((folder) =>
    readdirSync(path.join(ROOT, folder), { recursive: true, encoding: "utf8" })
      .map((file) => path.join(folder, file))
      .filter((file) => !MODULE_FILE.test(file) && statSync(path.join(ROOT, file)).isFile()),
  ).sort();
}

export interface BuildOptions {
  /** Type-check while compiling (as `npm run build` does); without it, tsc only emits (`--noCheck`). */
  typeCheck: boolean;
}

/** Compiles the services into `outDir` (emptied first, so nothing stale stays) and copies their assets. */
export function buildServices(outDir: string, options: BuildOptions): void {
  rmSync(outDir, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const args = [tsc, "-p", path.join(ROOT, "tsconfig.build.json"), "--outDir", outDir];
  if (!options.typeCheck) args.push("--noCheck");
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`tsc failed (${String(result.status ?? result.signal)}):\n${result.stdout}${result.stderr}`);
  }
  for (const asset of runtimeAssets()) {
    mkdirSync(path.join(outDir, path.dirname(asset)), { recursive: true });
    copyFileSync(path.join(ROOT, asset), path.join(outDir, asset));
  }
  // The compiled modules are ES modules wherever the folder is put (node reads the nearest package.json).
  writeFileSync(path.join(outDir, "package.json"), `${JSON.stringify({ type: "module" })}\n`);
}

if (isEntryPoint(import.meta.url)) {
  const outDir = path.resolve(ROOT, process.argv[2] ?? "dist");
  try {
    buildServices(outDir, { typeCheck: true });
    process.stdout.write(`built the services into ${path.relative(process.cwd(), outDir) || "."}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
