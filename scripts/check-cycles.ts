// The import rules of the project (docs/engine.md, "Layering"), run by `npm run lint`. Imports are resolved with
// the compiler's own module resolution and tsconfig, so `./x.js` finds `x.ts` exactly as tsc does. Refused:
//   - an import cycle between files;
//   - a cycle between the folders of engine/ (its files directly in engine/ count as one folder), counted on
//     production files: the folders form layers that import in one direction only;
//   - an import from one process's production files into another's: engine/, gateway/ and wallet/ import
//     only kernel/ and proto/ (they talk over gRPC), kernel/ only proto/;
//   - an import of a test helper (`*.testing.ts`, anything under test/) or a test from production code.
// Production code is every file of engine/, gateway/, wallet/ and kernel/ that is neither a test (`*.test.ts`)
// nor a test helper. Exits 1 listing every problem.
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { isEntryPoint } from "../kernel/process.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The project's files (absolute paths) and, for each, the project files it imports. */
interface ImportGraph {
  readonly files: readonly string[];
  readonly imports: ReadonlyMap<string, readonly string[]>;
}

function importGraph(configPath: string): ImportGraph {
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (config === undefined) throw new Error(`cannot read ${configPath}`);
  const files = config.fileNames.filter((f) => /\.ts$/.test(f) && !f.includes("/proto/gen/"));
  const known = new Set(files);
  const imports = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(ts.sys.readFile(file) ?? "", true, true);
    const edges: string[] = [];
    for (const imported of info.importedFiles) {
      const resolved = ts.resolveModuleName(imported.fileName, file, config.options, ts.sys).resolvedModule;
      if (resolved !== undefined && known.has(resolved.resolvedFileName)) edges.push(resolved.resolvedFileName);
    }
    imports.set(file, edges);
  }
  return { files, imports };
}

/**
 * Tarjan's strongly connected components of a directed graph: every component with more than one node (or a
 * node that reaches itself directly) is a cycle.
 */
function cyclesOf(nodes: Iterable<string>, next: (node: string) => readonly string[]): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const to of next(node)) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (;;) {
        const member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      if (component.length > 1 || next(node).includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return cycles;
}

/** Every import cycle between files, each as the sorted paths relative to the repository. */
export function findCycles(configPath: string): string[][] {
  const { files, imports } = importGraph(configPath);
  return cyclesOf(files, (file) => imports.get(file) ?? []).map((cycle) =>
    cycle.map((file) => path.relative(ROOT, file)).sort(),
  );
}

/** A test helper: `*.testing.ts` anywhere, or any file under test/. */
export const isTestHelper = (file: string): boolean => file.endsWith(".testing.ts") || file.startsWith("test/");

const isTest = (file: string): boolean => file.endsWith(".test.ts");

/** A production file (path relative to the project): engine/, gateway/, wallet/ or kernel/, not a test or helper. */
export const isProduction = (file: string): boolean =>
  /^(engine|gateway|wallet|kernel)\//.test(file) && !isTest(file) && !isTestHelper(file);

/**
 * What the production code of each process (and of kernel/) may import from outside its own folder: the
 * processes talk over gRPC only, so none imports another.
 */
const SHARED: Readonly<Record<string, readonly string[]>> = {
  engine: ["kernel", "proto"],
  gateway: ["kernel", "proto"],
  wallet: ["kernel", "proto"],
  kernel: ["proto"],
};

/** The layer of an engine file: its folder right under engine/, or `engine/` for the files directly in it. */
function engineFolder(file: string): string | undefined {
  if (!file.startsWith("engine/")) return undefined;
  const parts = file.split("/");
  return parts.length > 2 ? `engine/${parts[1] ?? ""}/` : "engine/";
}

/**
 * Every break of the layering rules (see the top of this file), as one line each naming the imports at fault;
 * paths are relative to the directory of `configPath`.
 */
export function layeringProblems(configPath: string): string[] {
  const base = path.dirname(path.resolve(configPath));
  const graph = importGraph(configPath);
  const edges: [string, string][] = [];
  for (const [from, targets] of graph.imports) {
    for (const to of targets) edges.push([path.relative(base, from), path.relative(base, to)]);
  }
  const production = edges.filter(([from]) => isProduction(from));
  const problems: string[] = [];
  for (const [from, to] of production) {
    const [fromTop, toTop] = [from.split("/")[0] ?? "", to.split("/")[0] ?? ""];
    if (isTest(to) || isTestHelper(to)) {
      problems.push(`production code imports test code: ${from} → ${to}`);
    } else if (fromTop !== toTop && !(SHARED[fromTop] ?? []).includes(toTop)) {
      problems.push(`${fromTop} imports ${toTop}/: ${from} → ${to}`);
    }
  }
  return [...problems, ...folderCycles(production.filter(([, to]) => isProduction(to)))];
}

/** The cycles between engine/'s folders over the given imports, each with one import per folder edge in it. */
function folderCycles(imports: readonly [string, string][]): string[] {
  const between = new Map<string, Map<string, string>>();
  for (const [from, to] of imports) {
    const a = engineFolder(from);
    const b = engineFolder(to);
    if (a === undefined || b === undefined || a === b) continue;
    const out = between.get(a) ?? new Map<string, string>();
    if (!out.has(b)) out.set(b, `${from} → ${to}`);
    between.set(a, out);
  }
  const next = (folder: string): readonly string[] => [...(between.get(folder)?.keys() ?? [])];
  return cyclesOf(between.keys(), next).map((cycle) => {
    const members = new Set(cycle);
    const witnesses = cycle.flatMap((folder) =>
      [...(between.get(folder) ?? [])].filter(([to]) => members.has(to)).map(([, edge]) => edge),
    );
    return `folder cycle ${cycle.join(" ↔ ")}: ${witnesses.join("; ")}`;
  });
}

if (isEntryPoint(import.meta.url)) {
  const configPath = path.join(ROOT, "tsconfig.json");
  const cycles = findCycles(configPath);
  const problems = layeringProblems(configPath);
  if (cycles.length > 0) {
    process.stderr.write(`import cycles:\n${cycles.map((c) => `  - ${c.join(" ↔ ")}`).join("\n")}\n`);
  }
  if (problems.length > 0) {
    process.stderr.write(`layering (docs/engine.md, "Layering"):\n${problems.map((p) => `  - ${p}`).join("\n")}\n`);
  }
  if (cycles.length > 0 || problems.length > 0) process.exit(1);
  process.stdout.write("no import cycles; the layering holds\n");
}
