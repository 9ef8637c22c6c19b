#!/usr/bin/env node
// `npx ftrade`: registers tsx so the client's TypeScript runs as it is, then hands over to client/src/cli.ts.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli.ts");
process.exitCode = await main(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
