/**
 * OAuth answers (a code exchange, a refresh, a revocation) are read under a byte cap and the
 * call's own deadline, like every upstream answer (connectors/http/read-body.ts): a token
 * endpoint, or whatever answers at its address, may send a body without end or drip it. The
 * fetch this makes hands its caller (oauth4webapi, or our own JSON read) a Response whose
 * body was already read within those bounds; past the cap it rejects, as an unreachable
 * endpoint does.
 */
import { readBodyCapped } from "../../connectors/http/read-body.js";

/** A token answer is a few hundred bytes; 64 KiB leaves room for any provider's error page. */
export const OAUTH_ANSWER_MAX_BYTES = 64 * 1024;

/** Statuses whose Response may carry no body (the Fetch standard's null body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export function boundedAnswerFetch(
  fetchFn: typeof fetch,
  maxBytes: number = OAUTH_ANSWER_MAX_BYTES,
): typeof fetch {
  return async (input, init) => {
    const answer = await fetchFn(input, init);
    const signal = init?.signal ?? undefined;
    const body = await readBodyCapped(answer, { maxBytes, ...(signal !== undefined && { signal }) });
    return new Response(NULL_BODY.has(answer.status) ? null : body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    });
  };
}
