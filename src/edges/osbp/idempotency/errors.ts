/** Small helpers for turning Node and Redis errors into IdempotencyStoreError messages. */

/** The `code` of a Node system error (ENOENT, EEXIST, …), if any. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
