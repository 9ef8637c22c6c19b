// Every line the stack's processes print, kept per process, and the check run when a stack stops: no JSON log
// line writes a key twice (docs/tracing.md, Logs). JSON.parse would keep the last of two equal keys without a
// word, so the check scans each line's text (kernel/json-keys.ts).
import type { Readable } from "node:stream";
import { repeatedKeys } from "../../kernel/json-keys.js";

export interface PrintedLine {
  /** The process that printed it (`gateway-0`, `engine`, `wallet-0`, `database`). */
  process: string;
  line: string;
}

/** What a stack's processes printed, line by line. */
export class LogLines {
  readonly printed: PrintedLine[] = [];

  /** Keeps every complete line `stream` prints as `process`'s, however the pipe splits it into chunks. */
  watch(process: string, stream: Readable | null | undefined, onLine?: (line: string) => void): void {
    let pending = "";
    stream?.on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      let newline = pending.indexOf("\n");
      while (newline >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        this.printed.push({ process, line });
        onLine?.(line);
        newline = pending.indexOf("\n");
      }
    });
  }

  /** One message per key written twice in a JSON line: the process, the key (with its object's path) and the line. */
  repeatedKeys(): string[] {
    const found: string[] = [];
    for (const { process, line } of this.printed) {
      if (!line.trimStart().startsWith("{")) continue;
      try {
        JSON.parse(line);
      } catch {
        continue; // not a JSON line (a stack trace, a warning printed as text)
      }
      for (const { path, key } of repeatedKeys(line)) {
        found.push(`${process} wrote "${path === "" ? key : `${path}.${key}`}" twice in: ${line}`);
      }
    }
    return found;
  }

  /** Throws, naming every such line and key, if a JSON line wrote a key twice. */
  assertEachKeyOnce(): void {
    const found = this.repeatedKeys();
    if (found.length > 0) {
      throw new Error(`log lines with a repeated key (docs/tracing.md, Logs):\n${found.join("\n")}`);
    }
  }
}
