// Typed linting: floating and misused promises are errors, because an unawaited
// upstream call or store write is how bookings get lost.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { boundaryBlocks } from "./boundaries.config.js";

export default tseslint.config(
  { ignores: ["dist/", "packages/*/dist/", "node_modules/", "coverage/", ".osbp/", "*.config.js", "bin/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      eqeqeq: ["error", "always"],
    },
  },
  // Layer boundaries (docs/ARCHITECTURE.md, Layers): which folder may import which.
  ...boundaryBlocks(),
);
