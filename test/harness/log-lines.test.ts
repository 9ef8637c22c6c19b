import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { LogLines } from "./log-lines.js";

describe("LogLines", () => {
  it("keeps each process's lines whole, however the pipe splits and interleaves their chunks", () => {
    const lines = new LogLines();
    const gateway = new PassThrough();
    const engine = new PassThrough();
    const seen: string[] = [];
    lines.watch("gateway-0", gateway, (line) => seen.push(line));
    lines.watch("engine", engine);
    gateway.write('{"service":"gateway",');
    engine.write('{"service":"engine"}\n{"a":');
    gateway.write('"msg":"x"}\n');
    engine.write("1}\n");
    expect(lines.printed).toEqual([
      { process: "engine", line: '{"service":"engine"}' },
      { process: "gateway-0", line: '{"service":"gateway","msg":"x"}' },
      { process: "engine", line: '{"a":1}' },
    ]);
    expect(seen).toEqual(['{"service":"gateway","msg":"x"}']);
  });

  it("passes JSON lines with each key once, and lines that are not JSON", () => {
    const lines = new LogLines();
    lines.printed.push(
      { process: "gateway-0", line: '{"service":"gateway","upstream":"engine","msg":"engine unavailable"}' },
      { process: "engine", line: "Error: boom" },
      { process: "engine", line: "{ code: 'ECONNRESET' }" },
      { process: "wallet-0", line: "" },
    );
    expect(lines.repeatedKeys()).toEqual([]);
    expect(() => {
      lines.assertEachKeyOnce();
    }).not.toThrow();
  });

  it("fails naming the process, the key and the line of a JSON line that wrote a key twice", () => {
    const lines = new LogLines();
    const line = '{"service":"gateway","request_id":"r1","service":"engine","err":{"a":1,"a":2}}';
    lines.printed.push({ process: "gateway-0", line });
    expect(lines.repeatedKeys()).toEqual([
      `gateway-0 wrote "service" twice in: ${line}`,
      `gateway-0 wrote "err.a" twice in: ${line}`,
    ]);
    expect(() => {
      lines.assertEachKeyOnce();
    }).toThrow(`gateway-0 wrote "service" twice in: ${line}`);
  });
});
