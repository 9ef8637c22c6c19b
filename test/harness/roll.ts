// A rolling restart of a whole stack for tests and benchmarks: PostgreSQL and Redis, two engine indexes, two
// gateways behind a balancer (test/harness/balancer.ts), fixed pushed prices (PRICE_FEED=push), and traders
// with one account of each kind (`rolled`: traded during the roll; `control`: the same script with no restart).
// The engine topology is one object (`EngineTopology`): which processes a stack starts and how one index is
// rolled (SIGTERM) or killed (SIGKILL) so that another process serves its partitions. `successorsByIndex` is
// what exists (docs/scale-out.md, "Hand-over"); a topology with standbys plugs in as another EngineTopology.
import { partitionOf } from "../../kernel/partition.js";
import { stackOn, type TestStack } from "./backends.js";
import { startBalancer, type Balancer } from "./balancer.js";
import { newKey } from "./client.js";
import { marketClient } from "./market.js";
import type { LoadAccount } from "./steady-load.js";
import { engineProcessName, type Stack, type StackOptions } from "./stack.js";

export const PLAN_10K = "48a184ce-7d26-4b3f-82e3-cbf4f08383ba";
/** The fixed prices every engine is pushed once (kept in the database, so later processes start from them). */
export const PRICES = { "BTC-USD": 50_000 };
const ENGINES = 2;

export interface Replaced {
  exitCode: number | null;
  /** performance.now() when the signal was sent. */
  signalledAt: number;
  /** Settles once the other process serves. */
  serving: Promise<void>;
  /** Settles once a process waits to take the next replacement (after `serving`). */
  spare: Promise<void>;
}

export interface EngineTopology {
  /** What the report calls it. */
  name: string;
  /** The engine processes the stack starts. */
  stack: Pick<StackOptions, "engines" | "successors" | "deferSuccessors" | "standbys" | "pooledEngines">;
  /** The indexes to replace, in turn, so that every engine process the stack started is stopped once. */
  rollOrder: number[];
  /**
   * Stops the process serving engine `index`'s partitions with `signal` once another process is ready to take
   * them; resolves with the stopped process's exit code and a promise that settles once the other one serves.
   */
  replace(stack: Stack, index: number, signal: NodeJS.Signals): Promise<Replaced>;
}

/**
 * Two owners (index 0 and 1 of 2), each with a successor of the same index: process 1 of an index (listed after
 * process 0 in the gateways' targets) is started just before process 0 is stopped, waits for the leases and
 * serves once it holds them; the next replacement of that index starts process 0 again, and so on.
 */
export function successorsByIndex(): EngineTopology {
  const serving = new Map<number, 0 | 1>();
  return {
    name: "2 owners, a successor started per index",
    stack: { engines: ENGINES, successors: [0, 1], deferSuccessors: true },
    rollOrder: [0, 1],
    async replace(stack, index, signal) {
      const old = serving.get(index) ?? 0;
      const next = old === 0 ? 1 : 0;
      const name = engineProcessName(index, next);
      const waited = (): number =>
        stack.linesOf(name).filter((line) => line.includes("partitions leased by another live engine")).length;
      const before = waited();
      stack.startEngine(index, next);
      // It is up and waiting for the leases: a SIGTERM now is taken over at its next poll.
      while (waited() === before) await new Promise((resolve) => setTimeout(resolve, 50));
      const signalledAt = performance.now();
      const exitCode = await stack.signalEngine(index, old, signal);
      serving.set(index, next);
      return { exitCode, signalledAt, serving: stack.engineListening(index, next), spare: Promise.resolve() };
    },
  };
}

/**
 * Two owners (index 0 and 1 of 2) and one standby (docs/scale-out.md, "Standbys"), every process listed in every
 * gateway entry: the process serving an index is stopped, the waiting standby takes the index, and the stopped
 * process starts again on its ports as the next standby. Replacing 0, 1, then 0 again stops each of the three
 * once (the third replacement stops the first standby, which serves index 0 by then).
 */
export function ownersAndStandby(): EngineTopology {
  const serving = new Map<number, string>([
    [0, engineProcessName(0, 0)],
    [1, engineProcessName(1, 0)],
  ]);
  const waiting = ["engine-standby-0"];
  return {
    name: "2 owners and 1 standby",
    stack: { engines: ENGINES, standbys: 1, pooledEngines: true },
    rollOrder: [0, 1, 0],
    async replace(stack, index, signal) {
      const old = serving.get(index);
      const next = waiting.shift();
      if (old === undefined || next === undefined) throw new Error(`no standby waits to take engine ${index}`);
      const taken = stack.listeningOf(next);
      const signalledAt = performance.now();
      const exitCode = await stack.signalNamed(old, signal);
      const served = taken.then((line) => {
        if (line.engine !== index) throw new Error(`${next} took engine ${String(line.engine)}, not ${index}`);
        serving.set(index, next);
      });
      const spare = served.then(async () => {
        await stack.relaunchAsStandby(old);
        waiting.push(old);
      });
      spare.catch(() => undefined);
      return { exitCode, signalledAt, serving: served, spare };
    },
  };
}

export interface Trader extends LoadAccount {
  /** The account traded while nothing restarts, by the same script: its books are what `account`'s must be. */
  control: LoadAccount;
  /** The engine index owning both accounts. */
  engine: number;
}

export interface RollStack {
  stack: TestStack;
  balancer: Balancer;
  traders: Trader[];
  topology: EngineTopology;
  stop(): Promise<void>;
}

/**
 * Settings for the gateways of a roll: the default 2 s drain phase (the balancer polls every 100 ms), a long hold and
 * deadline.
 */
export const ROLL_GATEWAY_ENV = {
  GATEWAY_DRAIN_DELAY_MS: "2000",
  // Bounded generously for a loaded machine: a successor starts its shard threads once it holds the leases,
  // and each gateway's channel to it reconnects on its own backoff.
  HANDOVER_HOLD_MS: "20000",
  // A loaded test machine stalls processes for seconds; the roll must not be judged by that.
  GRPC_DEADLINE_MS: "10000",
  RATE_LIMIT_MAX: "1000000",
};

/**
 * The production lease (README, "Settings"), not the harness's short one: on a loaded machine a renewal late by
 * a second would stop an engine serving for a moment, and nothing here waits for a lease to expire but the
 * kill -9 of the benchmark, which measures it as in production.
 */
export const ROLL_ENGINE_ENV = { ENGINE_LEASE_TTL_MS: "10000", ENGINE_LEASE_RENEW_MS: "3000" };

/** Creates an account of `engine`'s partitions for `key`. */
async function accountOn(balancer: Balancer, who: Omit<LoadAccount, "account">, engine: number): Promise<string> {
  for (;;) {
    const { response } = await balancer.fetch("/v1/account", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": who.key.key, "x-api-secret": who.key.secret },
      body: JSON.stringify({ plan_id: PLAN_10K }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    // Setting up, not measured: an engine busy starting on a loaded machine is waited for as a client would.
    if (response.status === 503) {
      await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get("retry-after") ?? 1) * 1000));
      continue;
    }
    if (response.status !== 201) throw new Error(`create account: ${response.status} ${JSON.stringify(body)}`);
    const id = String(body.account_id);
    if (partitionOf(id) % ENGINES === engine) return id;
  }
}

/**
 * The stack, the balancer and `keys` traders (alternating engines), prices pushed to every engine. `settings`
 * go on top of ROLL_GATEWAY_ENV and the harness's engine settings.
 */
export async function startRollStack(
  topology: EngineTopology,
  keys: number,
  settings: Pick<StackOptions, "gatewayEnv" | "engineEnv"> = {},
): Promise<RollStack> {
  const stack = await stackOn("postgres", {
    ...topology.stack,
    gateways: 2,
    redis: true,
    restartableGateways: true,
    env: { PRICE_FEED: "push" },
    gatewayEnv: { ...ROLL_GATEWAY_ENV, ...settings.gatewayEnv },
    engineEnv: { ...ROLL_ENGINE_ENV, ...settings.engineEnv },
  });
  const balancer = startBalancer(stack.gateways.map((gateway) => gateway.v1));
  const stop = async (): Promise<void> => {
    balancer.close();
    await stack.stop();
  };
  try {
    for (const target of stack.engineGrpcs) {
      const market = marketClient(target);
      await market.push(PRICES);
      market.close();
    }
    await balancer.ready();
    const traders: Trader[] = [];
    for (let k = 0; k < keys; k++) {
      const key = await newKey(stack.gateways[k % 2]?.api ?? "", `roll-${k}`, {
        label: "algo",
        permissions: ["READ_ONLY", "TRADE", "MANAGE_ORDERS"],
      });
      const engine = k % ENGINES;
      const account = await accountOn(balancer, { key }, engine);
      const control = { key, account: await accountOn(balancer, { key }, engine) };
      traders.push({ key, account, control, engine });
    }
    // Pushed prices are written to the database within a second of the push (docs/engine.md): a process
    // started later begins from them.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return { stack, balancer, traders, topology, stop };
  } catch (error) {
    const printed = stack.output().slice(-20_000);
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${printed}`);
  }
}

/** What one step of a roll did, for the report. */
export interface RollStep {
  what: string;
  exitCode: number | null;
  /** performance.now() when it began, when the old process was signalled, and when the replacement served. */
  from: number;
  signalledAt: number;
  to: number;
}

/** Why the gateways answered 503 (their "… unavailable" warnings), to explain failures. */
export function unavailableReasons(stack: Stack): string[] {
  return stack.gateways.flatMap((_, i) =>
    stack.linesOf(`gateway-${i}`).filter((line) => line.includes(' unavailable"') && line.includes('"reason"')),
  );
}

/**
 * SIGTERMs the process serving each index of the topology's roll order in turn (the next once the replacement
 * serves and a spare waits), then every gateway.
 */
export async function rollAll(roll: RollStack): Promise<RollStep[]> {
  const steps: RollStep[] = [];
  for (const index of roll.topology.rollOrder) {
    const from = performance.now();
    const { exitCode, signalledAt, serving, spare } = await roll.topology.replace(roll.stack, index, "SIGTERM");
    await serving;
    steps.push({ what: `engine ${index}`, exitCode, from, signalledAt, to: performance.now() });
    await spare;
  }
  for (let gateway = 0; gateway < roll.stack.gateways.length; gateway++) {
    const from = performance.now();
    const exitCode = await roll.stack.restartGateway(gateway, "SIGTERM");
    await roll.balancer.ready(gateway);
    steps.push({ what: `gateway ${gateway}`, exitCode, from, signalledAt: from, to: performance.now() });
  }
  return steps;
}
