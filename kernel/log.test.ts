import { describe, expect, it } from "vitest";
import { repeatedKeys } from "./json-keys.js";
import { createLogger, type Logger } from "./log.js";

function capture(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = createLogger("gateway", "info", { write: (line: string) => void lines.push(line) });
  return { log, lines };
}

describe("createLogger: each key once per line", () => {
  it("keeps the process's service when a call's fields name another, and keeps the other under repeated", () => {
    const { log, lines } = capture();
    log.warn({ service: "engine", code: "engine_unavailable" }, "engine unavailable");
    const [line = ""] = lines;
    expect(repeatedKeys(line)).toEqual([]);
    expect(JSON.parse(line)).toMatchObject({
      service: "gateway",
      code: "engine_unavailable",
      repeated: { service: "engine" },
      msg: "engine unavailable",
    });
  });

  it("keeps pino's own level, time and msg when a call's fields carry them", () => {
    const { log, lines } = capture();
    log.info({ level: "debug", time: 1, msg: "theirs" }, "ours");
    const [line = ""] = lines;
    expect(repeatedKeys(line)).toEqual([]);
    expect(JSON.parse(line)).toMatchObject({
      level: "info",
      msg: "ours",
      repeated: { level: "debug", time: 1, msg: "theirs" },
    });
  });

  it("writes a call's fields as they are when none repeats a bound key", () => {
    const { log, lines } = capture();
    log.info({ request_id: "r1", upstream: "wallet" }, "wallet unavailable");
    expect(JSON.parse(lines[0] ?? "")).not.toHaveProperty("repeated");
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ service: "gateway", request_id: "r1", upstream: "wallet" });
  });

  it("refuses a child whose bindings repeat a key its logger already writes", () => {
    const { log } = capture();
    expect(() => log.child({ service: "engine" })).toThrow(/repeat service/);
    expect(() => log.child({ msg: "x" })).toThrow(/repeat msg/);
    const child = log.child({ account_id: "a" });
    expect(() => child.child({ shard: 1, account_id: "b" })).toThrow(/repeat account_id/);
  });

  it("keeps a child's and a grandchild's bindings once when their calls' fields repeat them", () => {
    const { log, lines } = capture();
    const child = log.child({ account_id: "a" });
    child.info({ account_id: "b", n: 1 }, "child");
    child.child({ shard: 1 }).info({ shard: 2, account_id: "c", service: "x" }, "grandchild");
    expect(lines.flatMap((line) => repeatedKeys(line))).toEqual([]);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ account_id: "a", n: 1, repeated: { account_id: "b" } });
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({
      service: "gateway",
      account_id: "a",
      shard: 1,
      repeated: { shard: 2, account_id: "c", service: "x" },
    });
  });
});
