// Equality every test file shares (vitest `setupFiles`, vitest.config.ts): two FinalQueues
// (engine/basics/final-queue.ts) are equal when they hold the same ids with the same times in the same order,
// whatever slots each gave up or compacted on the way (a restored queue is compact, a live one need not be).
import { expect } from "vitest";
import { FinalQueue } from "../engine/basics/final-queue.js";

function finalQueues(this: { equals(a: unknown, b: unknown): boolean }, a: unknown, b: unknown): boolean | undefined {
  const aQueue = a instanceof FinalQueue;
  const bQueue = b instanceof FinalQueue;
  if (!aQueue && !bQueue) return undefined;
  if (!aQueue || !bQueue) return false;
  return a.size === b.size && this.equals(a.entries(), b.entries());
}

expect.addEqualityTesters([finalQueues]);
