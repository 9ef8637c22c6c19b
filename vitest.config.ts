import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "data/**", "client/dist/**"],
    setupFiles: ["test/equality.ts"],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    pool: "forks",
    fileParallelism: true,
    // Two files at a time: vitest's default on a 2-core machine is one (cores - 1), and most end-to-end files
    // spend their time waiting on their own stacks, not on the CPU.
    maxWorkers: 2,
  },
});
