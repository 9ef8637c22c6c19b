// `npm run load:provision -- --v1 URL [--api URL] [--keys N] [--out FILE]`: creates N keys, each with a user and
// a funded account of its own, on a running stack, and writes the file the k6 scripts read with open()
// (load-tests/keys.json by default). The stack needs a mark price for every symbol (its simulator, or pushed
// prices) before this runs: the far-from-the-mark limit prices are computed from it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { defaultApi } from "../scripts/load/args.js";
import { DEFAULT_PLAN_ID, DEFAULT_SYMBOLS, provision } from "../scripts/load/provision.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const USAGE = `npm run load:provision -- --v1 http://HOST:8080 [--api http://HOST:8081] [--keys 60]
  [--admin-token TOKEN] [--plan PLAN_ID] [--symbols BTC-USD,ETH-USD] [--out load-tests/keys.json]`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      v1: { type: "string", default: "http://127.0.0.1:8080" },
      api: { type: "string" },
      keys: { type: "string", default: "60" },
      "admin-token": { type: "string" },
      plan: { type: "string", default: DEFAULT_PLAN_ID },
      symbols: { type: "string", default: DEFAULT_SYMBOLS.join(",") },
      out: { type: "string", default: path.join(HERE, "keys.json") },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const keys = Number(values.keys);
  if (!Number.isInteger(keys) || keys < 1) throw new Error(`--keys must be a positive integer\n${USAGE}`);
  const v1 = values.v1.replace(/\/+$/, "");
  const file = await provision({
    v1,
    api: values.api?.replace(/\/+$/, "") ?? defaultApi(v1),
    adminToken: values["admin-token"] ?? process.env.WALLET_ADMIN_TOKEN,
    keys,
    planId: values.plan,
    symbols: values.symbols.split(",").map((s) => s.trim()),
  });
  writeFileSync(values.out, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  process.stderr.write(`wrote ${keys} keys and accounts to ${values.out}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
