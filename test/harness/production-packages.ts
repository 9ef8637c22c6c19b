// The packages `npm ci --omit=dev` installs for the root manifest, read from package.json and package-lock.json:
// what the image's deps stage holds (it has no workspace folder, so no client dependencies), for tests that check
// the image's dependencies or run the compiled build beside exactly those packages.
import { mkdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const MODULES = "node_modules/";

interface LockedPackage {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const readJson = (file: string): unknown => JSON.parse(readFileSync(path.join(ROOT, file), "utf8"));

/** The package a lock path (`node_modules/a/node_modules/@s/b`) holds: `@s/b`. */
export const packageName = (at: string): string => at.slice(at.lastIndexOf(MODULES) + MODULES.length);

/**
 * The lock paths of package.json's dependencies and of everything they need (required peers included), each
 * found where node's lookup finds it: its own node_modules first, then each enclosing one.
 */
export function productionPackages(): string[] {
  const manifest = readJson("package.json") as { dependencies: Record<string, string> };
  const locked = (readJson("package-lock.json") as { packages: Record<string, LockedPackage> }).packages;
  const locate = (name: string, from: string): string | undefined => {
    for (let base = from; ;) {
      const candidate = `${base === "" ? "" : `${base}/`}${MODULES}${name}`;
      if (locked[candidate] !== undefined) return candidate;
      if (base === "") return undefined;
      const parent = base.lastIndexOf(`/${MODULES}`);
      base = parent < 0 ? "" : base.slice(0, parent);
    }
  };
  const found = new Set<string>();
  const visit = (from: string, names: string[]): void => {
    for (const name of names) {
      const at = locate(name, from);
      if (at === undefined || found.has(at)) continue;
      found.add(at);
      const entry = locked[at] ?? {};
      const peers = Object.keys(entry.peerDependencies ?? {}).filter((p) => !entry.peerDependenciesMeta?.[p]?.optional);
      visit(at, [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...peers]);
    }
  };
  visit("", Object.keys(manifest.dependencies));
  return [...found].sort();
}

/**
 * A node_modules at `into` holding links to the repository's installed copies of the production packages found
 * at its top level (the nested ones are reached through those links).
 */
export function linkProductionModules(into: string): void {
  for (const at of productionPackages().filter((p) => p.indexOf(MODULES, 1) < 0)) {
    const name = packageName(at);
    mkdirSync(path.dirname(path.join(into, name)), { recursive: true });
    symlinkSync(path.join(ROOT, at), path.join(into, name));
  }
}
