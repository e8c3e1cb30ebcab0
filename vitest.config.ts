import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    setupFiles: ["./test/support/env-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
