// Refuses import cycles between the project's modules. Imports are resolved with the compiler's own module
// resolution and tsconfig, so `./x.js` finds `x.ts` exactly as tsc does. Exits 1 listing every cycle.
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { isEntryPoint } from "../kernel/process.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export function findCycles(configPath: string): string[][] {
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
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(ts.sys.readFile(file) ?? "", true, true);
    const edges: string[] = [];
    for (const imported of info.importedFiles) {
      const resolved = ts.resolveModuleName(imported.fileName, file, config.options, ts.sys).resolvedModule;
      if (resolved !== undefined && known.has(resolved.resolvedFileName)) edges.push(resolved.resolvedFileName);
    }
    graph.set(file, edges);
  }
  // Tarjan's strongly connected components: every component with more than one file (or a self-import) is a cycle.
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
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
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
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) {
        cycles.push(component.map((f) => path.relative(ROOT, f)).sort());
      }
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return cycles;
}

if (isEntryPoint(import.meta.url)) {
  const cycles = findCycles(path.join(ROOT, "tsconfig.json"));
  if (cycles.length > 0) {
    process.stderr.write(`import cycles:\n${cycles.map((c) => `  - ${c.join(" ↔ ")}`).join("\n")}\n`);
    process.exit(1);
  }
  process.stdout.write("no import cycles\n");
}
