// Types of build-stamp.js (plain JavaScript: it runs before tsx is loaded).

export declare const STAMP_PATH: string;
export declare const DIST_MAIN: string;
export declare const SRC_MAIN: string;

export type Entry =
  | { readonly run: "dist" }
  | { readonly run: "src"; readonly stale: boolean }
  | { readonly run: "none"; readonly message: string };

export declare function sourceHash(root: string): string;
export declare function writeBuildStamp(root: string): void;
export declare function chooseEntry(root: string, options: { readonly tsx: boolean }): Entry;
