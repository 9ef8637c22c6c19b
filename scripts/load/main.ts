// `npm run load -- --scenario <per-key|over-limit|spike|soak> ...`: the load scenarios of load-tests/k6, run
// from Node. Starts the real processes on a throwaway PostgreSQL and Redis (test/harness) unless --target
// names a running stack, provisions keys and accounts, sends every key's requests at exact, evenly spaced
// times (open loop), prints a summary and writes it to bench/load-<scenario>.json. See load-tests/README.md.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stackOn, type TestStack } from "../../test/harness/backends.js";
import { marketClient } from "../../test/harness/market.js";
import { defaultApi, parseArgs, type LoadArgs } from "./args.js";
import { referencePrices, startFeed } from "./feed.js";
import { runOverload } from "./overload.js";
import { isOverloadScenario, parseOverloadArgs, type OverloadArgs } from "./overload-plan.js";
import { provision, type Provisioned } from "./provision.js";
import { formatSummary, summarizeRun } from "./report.js";
import { runLoad } from "./run.js";
import { countSends, planKeys } from "./schedule.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const say = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

async function main(args: LoadArgs): Promise<void> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const cleanup = async (): Promise<void> => {
    for (const run of cleanups.reverse()) {
      try {
        await run();
      } catch (error) {
        say(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    cleanups.length = 0;
  };
  const interrupt = (): void => {
    say("interrupted: stopping");
    void cleanup().finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);

  try {
    let v1: string;
    let api: string;
    let stack: TestStack | undefined;
    if (args.target === undefined) {
      say(`starting the stack (${args.backend}${args.redis ? " + Redis" : ""}, PRICE_FEED=push) …`);
      stack = await stackOn(args.backend, {
        redis: args.redis,
        env: { PRICE_FEED: "push", LOG_LEVEL: "info" },
        // A long run rests more LIMIT orders per account than the default cap (docs/engine.md, "Limits").
        engineEnv: { ENGINE_MAX_WORKING_ORDERS: "100000" },
        gatewayEnv: {
          RATE_LIMIT_MAX: String(args.limit),
          RATE_LIMIT_WINDOW_MS: String(args.windowMs),
          RATE_LIMIT_MAX_DELAY_MS: String(args.maxDelayMs),
        },
      });
      const started = stack;
      cleanups.push(() => started.stop());
      const gateway = stack.gateways[0];
      if (gateway === undefined) throw new Error("no gateway");
      v1 = gateway.v1;
      api = gateway.api;
    } else {
      v1 = args.target;
      api = args.api ?? defaultApi(args.target);
    }
    const engineGrpc = stack?.engineGrpc ?? args.engineGrpc;
    if (engineGrpc !== undefined) {
      const market = marketClient(engineGrpc, process.env.INTERNAL_TOKEN);
      cleanups.push(() => {
        market.close();
      });
      cleanups.push(await startFeed(market, referencePrices(args.symbols), say));
    }

    let provisioned: Provisioned;
    if (args.keysFile === undefined) {
      say(`provisioning ${args.keys} keys and accounts …`);
      provisioned = await provision({
        v1,
        api,
        adminToken: args.adminToken,
        keys: args.keys,
        symbols: args.symbols,
      });
    } else {
      provisioned = JSON.parse(readFileSync(args.keysFile, "utf8")) as Provisioned;
      if (provisioned.keys.length < args.keys) {
        throw new Error(`${args.keysFile} has ${provisioned.keys.length} keys, --keys asks ${args.keys}`);
      }
    }
    const keys = provisioned.keys.slice(0, args.keys);

    const plans = planKeys({
      scenario: args.scenario,
      keys: args.keys,
      ratePerMinute: args.rate,
      durationMs: args.durationMs,
      warmupMs: args.warmupMs,
      spikeBase: args.spikeBase,
    });
    const url = new URL(v1);
    if (url.protocol !== "http:") throw new Error(`only http:// targets: ${v1}`);
    say(
      `running ${args.scenario}: ${args.keys} keys × ${args.rate}/min, ${countSends(plans)} requests over ` +
        `${(args.warmupMs + args.durationMs) / 1000} s (${args.warmupMs / 1000} s of it warm-up) against ${v1} …`,
    );
    const outcome = await runLoad({
      host: url.hostname,
      port: Number(url.port === "" ? 80 : url.port),
      keys,
      symbols: provisioned.symbols,
      plans,
      drainMs: args.drainMs,
      maxConnections: args.connections,
      warmConnections: Math.min(args.connections, Math.max(4, args.keys * 2)),
      progress: (atMs, answered) => {
        if (Math.round(atMs / 1000) % 10 === 0) say(`  ${Math.round(atMs / 1000)} s: ${answered} answered`);
      },
    });
    const summary = summarizeRun(outcome, {
      scenario: args.scenario,
      keys: args.keys,
      ratePerMinute: args.rate,
      durationMs: args.durationMs,
      warmupMs: args.warmupMs,
      limit: args.limit,
      windowMs: args.windowMs,
      maxDelayMs: args.maxDelayMs,
      target: args.target ?? `a stack started here (${args.backend}${args.redis ? " + Redis" : ""})`,
    });
    process.stdout.write(`${formatSummary(summary)}\n`);
    const out = args.out ?? path.join(ROOT, "bench", `load-${args.scenario}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    const { keys: perKey, ...rest } = summary;
    writeFileSync(
      out,
      `${JSON.stringify(
        {
          ...rest,
          finishedAt: new Date().toISOString(),
          machine: { cpus: os.cpus().length, node: process.version },
          keys: perKey,
        },
        null,
        2,
      )}\n`,
    );
    say(`wrote ${path.relative(process.cwd(), out)}`);
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
    await cleanup();
  }
}

const argv = process.argv.slice(2);
const exit = (error: unknown): void => {
  say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
};
if (isOverloadScenario(argv)) {
  let overload: OverloadArgs;
  try {
    overload = parseOverloadArgs(argv);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  let stopStack: (() => Promise<void>) | undefined;
  const interrupt = (): void => {
    say("interrupted: stopping");
    void (stopStack?.() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  runOverload(overload, say, (_name, stop) => {
    stopStack = stop;
  }).then(() => process.exit(0), exit);
} else {
  let parsed: LoadArgs;
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    say(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  main(parsed).then(() => process.exit(0), exit);
}
