// The two forms a process runs in: the TypeScript sources through tsx (`npm start`, the tests) or the compiled
// build (`npm run build`, dist/). They differ only in the modules' extension and in the loader a new process or
// thread needs; every other file the processes read (.proto, SQL migrations) sits at the same place relative to
// the modules in both (scripts/build.ts copies it), so it is found the same way.
import { fileURLToPath } from "node:url";

/** ".ts" when `moduleUrl` (a module's `import.meta.url`) is a source file, ".js" when it is compiled. */
export function moduleExtension(moduleUrl: string): ".ts" | ".js" {
  return new URL(moduleUrl).pathname.endsWith(".ts") ? ".ts" : ".js";
}

/** The file of module `relative` (a path without extension, relative to `moduleUrl`), in the form of `moduleUrl`. */
export function siblingModule(moduleUrl: string, relative: string): string {
  return fileURLToPath(new URL(relative + moduleExtension(moduleUrl), moduleUrl));
}

/** The node arguments a child process needs to run modules of `moduleUrl`'s form: tsx for sources, none compiled. */
export function loaderArgs(moduleUrl: string): string[] {
  return moduleExtension(moduleUrl) === ".ts" ? ["--import", "tsx"] : [];
}
