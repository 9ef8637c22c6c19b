// Serves the embedded default database (PGlite under DATA_DIR, kernel/embedded-postgres.ts) alone, for
// processes started one by one that share it as `npm start`'s supervisor shares its own: the test harness,
// and anyone running wallet, engine and gateway by hand. Prints one JSON line with the URL once it listens;
// stops on SIGINT or SIGTERM once the clean-up of the last connections has run.
import path from "node:path";
import { startEmbeddedPostgres } from "../kernel/embedded-postgres.js";

function log(fields: Record<string, unknown>, message: string): void {
  process.stdout.write(
    JSON.stringify({ level: "info", time: new Date().toISOString(), service: "database", ...fields, msg: message }) +
      "\n",
  );
}

async function main(): Promise<void> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? "./data");
  const database = await startEmbeddedPostgres(dataDir);
  log({ url: database.url, dataDir }, "embedded database listening");
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void database.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`database: failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
