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
  },
});
