// Piscina starts this file in each shard thread when the engine runs from its sources (runtime.ts; the compiled
// build starts worker.js itself). Node 20 cannot start a .ts worker under tsx, so this registers tsx in the
// thread and re-exports the TypeScript handler (pool option `name: "handle"`).
import { register } from "tsx/esm/api";

register();
const { handle } = await import("./worker.ts");

export { handle };
