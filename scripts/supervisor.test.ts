// The `npm start` supervisor's policy with fake children and a fake clock: a crash is restarted after a delay
// that doubles up to its ceiling and starts over once the child stayed up a window; one crash past the budget
// stops the stack in order with a line that says why; nothing restarts while stopping; settings parse with their
// defaults.
import { describe, expect, it } from "vitest";
import { ConfigError } from "../kernel/config.js";
import {
  Supervisor,
  loadSupervisorSettings,
  type ChildEvents,
  type SupervisorSettings,
  type Timers,
} from "./supervisor.js";

class FakeTimers implements Timers {
  private time = 0;
  private nextId = 1;
  private readonly pending = new Map<number, { at: number; run: () => void }>();

  now(): number {
    return this.time;
  }
  setTimeout(run: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.set(id, { at: this.time + ms, run });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** Moves the clock, running each timer due on the way in order (and letting promises settle after each). */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.pending.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.pending.delete(due[0]);
      this.time = due[1].at;
      due[1].run();
      await settle();
    }
    this.time = end;
    await settle();
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

interface FakeChild {
  name: string;
  pid: number;
  events: ChildEvents;
  /** What the supervisor sent it: "stop" or a signal. */
  received: string[];
}

const SETTINGS: SupervisorSettings = {
  restartDelayMs: 500,
  restartDelayMaxMs: 4_000,
  restartsMax: 5,
  restartsWindowMs: 60_000,
  stopTimeoutMs: 15_000,
};

function harness(options: { beforeRestart?: (name: string) => Promise<void> } = {}) {
  const timers = new FakeTimers();
  const spawned: FakeChild[] = [];
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  let nextPid = 100;
  const supervisor = new Supervisor({
    children: ["wallet", "engine", "gateway"],
    settings: SETTINGS,
    timers,
    log: (level, message, fields) => lines.push({ level, message, fields }),
    spawn: (name, events) => {
      const child: FakeChild = { name, pid: nextPid++, events, received: [] };
      spawned.push(child);
      return { pid: child.pid, stop: () => child.received.push("stop"), signal: (s) => child.received.push(s) };
    },
    ...options,
  });
  const latest = (name: string): FakeChild => {
    const found = spawned.filter((c) => c.name === name).at(-1);
    if (found === undefined) throw new Error(`${name} never spawned`);
    return found;
  };
  const countOf = (name: string): number => spawned.filter((c) => c.name === name).length;
  let code: number | undefined;
  void supervisor.done.then((c) => (code = c));
  const startAll = (): void => {
    supervisor.start();
    for (const child of spawned) child.events.started();
  };
  return { supervisor, timers, spawned, lines, latest, countOf, startAll, code: () => code };
}

describe("Supervisor", () => {
  it("restarts a crashed child after a delay that doubles up to its ceiling", async () => {
    const h = harness();
    h.startAll();
    const delays: number[] = [];
    for (let crash = 0; crash < 5; crash++) {
      const before = h.timers.now();
      h.latest("engine").events.exited(null, "SIGKILL");
      const spawnedBefore = h.countOf("engine");
      while (h.countOf("engine") === spawnedBefore) await h.timers.advance(100);
      delays.push(h.timers.now() - before);
      h.latest("engine").events.started();
    }
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 4_000]);
    expect(h.countOf("wallet")).toBe(1);
    expect(h.countOf("gateway")).toBe(1);
    expect(h.code()).toBeUndefined();
    const crashLine = h.lines.find((l) => l.message === "engine exited (SIGKILL); restarting in 500 ms");
    expect(crashLine?.fields).toMatchObject({
      child: "engine",
      pid: 101,
      signal: "SIGKILL",
      crashes: 1,
      delay_ms: 500,
    });
    expect(h.lines.at(-1)).toMatchObject({ message: "engine started", fields: { child: "engine", restarts: 5 } });
    expect(h.supervisor.pidOf("engine")).toBe(h.latest("engine").pid);
  });

  it("treats an exit 0 it did not ask for as a crash", async () => {
    const h = harness();
    h.startAll();
    h.latest("wallet").events.exited(0, null);
    await h.timers.advance(500);
    expect(h.countOf("wallet")).toBe(2);
    expect(h.lines.some((l) => l.message === "wallet exited (0); restarting in 500 ms")).toBe(true);
  });

  it("starts over from the first delay once the child stayed up for a whole window", async () => {
    const h = harness();
    h.startAll();
    for (let crash = 0; crash < 3; crash++) {
      h.latest("engine").events.exited(1, null);
      await h.timers.advance(10_000);
      h.latest("engine").events.started();
    }
    await h.timers.advance(SETTINGS.restartsWindowMs);
    h.latest("engine").events.exited(1, null);
    expect(h.lines.at(-1)?.message).toBe("engine exited (1); restarting in 500 ms");
    expect(h.lines.at(-1)?.fields.crashes).toBe(1);
  });

  it("stops the whole stack, in order, and says why once a child crashed more than the budget allows", async () => {
    const h = harness();
    h.startAll();
    for (let crash = 0; crash < SETTINGS.restartsMax; crash++) {
      h.latest("engine").events.exited(null, "SIGKILL");
      await h.timers.advance(SETTINGS.restartDelayMaxMs);
      h.latest("engine").events.started();
    }
    expect(h.countOf("engine")).toBe(SETTINGS.restartsMax + 1);
    h.latest("engine").events.exited(null, "SIGKILL");
    const last = h.lines.filter((l) => l.level === "error").at(-1);
    expect(last?.level).toBe("error");
    expect(last?.message).toBe(
      "engine exited (SIGKILL); restarts exhausted: 6 crashes within 60000 ms, at most 5 restarts allowed " +
        "(SUPERVISOR_RESTARTS_MAX); stopping the stack",
    );
    expect(last?.fields).toMatchObject({ child: "engine", crashes: 6 });
    // The gateway is told first; the wallet only once the gateway exited.
    await h.timers.advance(1_000);
    expect(h.latest("gateway").received).toEqual(["stop"]);
    expect(h.latest("wallet").received).toEqual([]);
    h.latest("gateway").events.exited(0, null);
    await h.timers.advance(0);
    expect(h.latest("wallet").received).toEqual(["stop"]);
    h.latest("wallet").events.exited(0, null);
    await h.timers.advance(0);
    expect(h.countOf("engine")).toBe(SETTINGS.restartsMax + 1);
    expect(h.code()).toBe(1);
  });

  it("restarts a child that exits before it ever started, like any crash", async () => {
    const h = harness();
    h.supervisor.start();
    h.latest("engine").events.exited(1, null);
    expect(h.lines.at(-1)?.message).toBe("engine exited (1); restarting in 500 ms");
    await h.timers.advance(500);
    expect(h.countOf("engine")).toBe(2);
    expect(h.code()).toBeUndefined();
  });

  it("sends SIGTERM to a child still starting when the stack stops (it has nothing to drain)", async () => {
    const h = harness();
    h.supervisor.start();
    h.latest("wallet").events.started();
    h.latest("engine").events.started();
    void h.supervisor.stop(0);
    await h.timers.advance(0);
    expect(h.latest("gateway").received).toEqual(["SIGTERM"]);
    h.latest("gateway").events.exited(null, "SIGTERM");
    await h.timers.advance(0);
    expect(h.latest("engine").received).toEqual(["stop"]);
    expect(h.lines.map((l) => l.message)).toEqual([
      "wallet started",
      "engine started",
      "stopping gateway",
      "stopping engine",
    ]);
  });

  it("restarts nothing while stopping: a pending restart is cancelled, a crash while stopping stays down", async () => {
    const h = harness();
    h.startAll();
    h.latest("engine").events.exited(null, "SIGKILL");
    const stopped = h.supervisor.stop(0);
    await h.timers.advance(0);
    expect(h.latest("gateway").received).toEqual(["stop"]);
    // The wallet crashes while the gateway drains.
    h.latest("wallet").events.exited(null, "SIGKILL");
    h.latest("gateway").events.exited(0, null);
    await stopped;
    await h.timers.advance(60_000);
    expect(h.countOf("engine")).toBe(1);
    expect(h.countOf("wallet")).toBe(1);
    expect(h.lines.filter((l) => l.message.includes("restarting"))).toHaveLength(1);
    expect(h.code()).toBe(0);
  });

  it("kills a child that does not stop within the stop timeout", async () => {
    const h = harness();
    h.startAll();
    void h.supervisor.stop(0);
    await h.timers.advance(SETTINGS.stopTimeoutMs - 1);
    expect(h.latest("gateway").received).toEqual(["stop"]);
    await h.timers.advance(1);
    expect(h.latest("gateway").received).toEqual(["stop", "SIGKILL"]);
  });

  it("prepares each restart before it spawns, and restarts even when preparing failed", async () => {
    const prepared: string[] = [];
    const h = harness({
      beforeRestart: (name) => {
        prepared.push(name);
        return name === "wallet" ? Promise.reject(new Error("database gone")) : Promise.resolve();
      },
    });
    h.startAll();
    h.latest("engine").events.exited(null, "SIGKILL");
    h.latest("wallet").events.exited(null, "SIGKILL");
    await h.timers.advance(500);
    expect(prepared).toEqual(["engine", "wallet"]);
    expect(h.countOf("engine")).toBe(2);
    expect(h.countOf("wallet")).toBe(2);
    expect(h.lines.find((l) => l.level === "warn")).toMatchObject({
      message: "wallet: preparing the restart failed; restarting anyway",
      fields: { child: "wallet", reason: "database gone" },
    });
  });
});

describe("loadSupervisorSettings", () => {
  it("has the documented defaults", () => {
    expect(loadSupervisorSettings({})).toEqual({
      restartDelayMs: 500,
      restartDelayMaxMs: 10_000,
      restartsMax: 5,
      restartsWindowMs: 60_000,
      stopTimeoutMs: 15_000,
    });
  });

  it("refuses a bad setting, naming it", () => {
    expect(() => loadSupervisorSettings({ SUPERVISOR_RESTARTS_MAX: "five" })).toThrow(ConfigError);
    expect(() => loadSupervisorSettings({ SUPERVISOR_RESTARTS_MAX: "five" })).toThrow(/SUPERVISOR_RESTARTS_MAX/);
  });
});
