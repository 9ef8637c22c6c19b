// Generates the client's types from docs/openapi.yaml with openapi-typescript. `npm run generate -w client`
// writes client/src/generated/openapi.ts; the drift test (client/test/generated.test.ts) renders the same text
// in memory and fails when the committed file differs.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SPEC_PATH = path.join(ROOT, "docs", "openapi.yaml");
export const GENERATED_PATH = path.join(ROOT, "client", "src", "generated", "openapi.ts");

const BANNER =
  "// Generated from docs/openapi.yaml by openapi-typescript (client/src/generate.ts). Do not edit:\n" +
  "// run `npm run generate -w client` after changing the document.\n\n";

/** The text client/src/generated/openapi.ts must hold for the current docs/openapi.yaml. */
export async function renderTypes(): Promise<string> {
  const ast = await openapiTS(readFileSync(SPEC_PATH, "utf8"), { silent: true });
  return BANNER + astToString(ast);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writeFileSync(GENERATED_PATH, await renderTypes());
}
