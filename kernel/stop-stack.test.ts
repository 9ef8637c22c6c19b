import { describe, expect, it } from "vitest";
import { StopStack, startParts } from "./stop-stack.js";

describe("StopStack", () => {
  it("stops the parts last in, first out, each after the one before has finished", async () => {
    const stack = new StopStack();
    const order: string[] = [];
    stack.push(() => {
      order.push("database");
    });
    stack.push(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      order.push("server");
    });
    stack.push(() => {
      order.push("admin");
    });
    await stack.stop();
    expect(order).toEqual(["admin", "server", "database"]);
  });

  it("stops each part once, however often it is asked to stop", async () => {
    const stack = new StopStack();
    let stops = 0;
    stack.push(() => {
      stops++;
    });
    await Promise.all([stack.stop(), stack.stop()]);
    await stack.stop();
    expect(stops).toBe(1);
  });

  it("stops every part when one fails, then throws the first failure", async () => {
    const stack = new StopStack();
    const order: string[] = [];
    stack.push(() => {
      order.push("database");
    });
    stack.push(() => {
      throw new Error("server would not stop");
    });
    stack.push(() => Promise.reject(new Error("admin would not stop")));
    await expect(stack.stop()).rejects.toThrow("admin would not stop");
    expect(order).toEqual(["database"]);
    await expect(stack.stop()).rejects.toThrow("admin would not stop");
  });

  it("stops a part pushed while stopping after the ones already stopping", async () => {
    const stack = new StopStack();
    const order: string[] = [];
    let release = (): void => undefined;
    stack.push(
      () =>
        new Promise<void>((resolve) => {
          release = () => {
            order.push("first");
            resolve();
          };
        }),
    );
    const stopping = stack.stop();
    stack.push(() => {
      order.push("late");
    });
    const late = stack.stop();
    release();
    await Promise.all([stopping, late]);
    expect(order).toEqual(["first", "late"]);
  });
});

describe("startParts", () => {
  it("answers what the start built and a stop that stops its parts last first", async () => {
    const order: string[] = [];
    const { started, stop } = await startParts(async (stack) => {
      stack.push(() => {
        order.push("a");
      });
      await Promise.resolve();
      stack.push(() => {
        order.push("b");
      });
      return 42;
    });
    expect(started).toBe(42);
    expect(order).toEqual([]);
    await stop();
    expect(order).toEqual(["b", "a"]);
  });

  it("stops what a failed start had started, last first, and throws the start's error", async () => {
    const order: string[] = [];
    await expect(
      startParts(async (stack) => {
        stack.push(() => {
          order.push("a");
        });
        stack.push(() => {
          throw new Error("b would not stop");
        });
        stack.push(() => {
          order.push("c");
        });
        await Promise.resolve();
        throw new Error("port in use");
      }),
    ).rejects.toThrow("port in use");
    expect(order).toEqual(["c", "a"]);
  });
});
