#!/usr/bin/env node
// `ftrade`: the command line of client/src/cli.ts. Installed from the package it runs the compiled dist/cli.js
// with plain node. In a checkout of the repository (src/ beside bin/; the package does not ship src/) it runs
// the sources through tsx instead, so `npx ftrade` there needs no build and never runs a stale dist/.
import { existsSync } from "node:fs";

const source = new URL("../src/cli.ts", import.meta.url);
const fromSource = existsSync(source);
if (fromSource) {
  const { register } = await import("tsx/esm/api");
  register();
}
const entry = fromSource ? source : new URL("../dist/cli.js", import.meta.url);
/** @type {typeof import("../src/cli.js")} */
const cli = await import(entry.href); // eslint-disable-line @typescript-eslint/no-unsafe-assignment -- a specifier chosen at run time has no static type; both entries are src/cli.ts's
process.exitCode = await cli.main(process.argv.slice(2), {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
