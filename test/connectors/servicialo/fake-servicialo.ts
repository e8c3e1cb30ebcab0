/**
 * The Servicialo platform of test/support/servicialo-platform.ts (fixtures/servicialo shapes,
 * v1.2.0 REST endpoints) scripted with nock at BASE, for the connector's unit tests and its
 * contract subject. `fetch` plays the faults a nock reply cannot: "timeout" never answers, and
 * "lost_response" lets the platform do the work, then never answers (the caller's timeout ends
 * the wait). A query without a day assumes Monday 2026-12-07, the day these tests book.
 */
import nock from "nock";
import { operationOf, ServicialoPlatform } from "../../support/servicialo-platform.js";

export {
  ORG,
  PREFIX,
  PROVIDERS,
  SERVICE,
  TZ,
  type FakeFault,
  type FakeOperation,
  type RecordedRequest,
} from "../../support/servicialo-platform.js";

export const BASE = "https://coordinalo.test";
export const API_KEY = "org-key-7f3a9c-SECRET";

export class FakeServicialo extends ServicialoPlatform {
  constructor() {
    super({ apiKey: API_KEY, defaultDay: "2026-12-07" });
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- nock binds `this` to the request
    const fake = this;
    const reply = (method: string, uri: string, body: unknown, headers: nock.ReplyHeaders) => {
      const r = fake.handle(method, uri, body, headers as Record<string, string | string[] | undefined>);
      return [r.status, r.body as nock.Body, r.headers] as nock.ReplyFnResult;
    };
    const scope = nock(BASE).persist();
    scope.get(/.*/).reply(function (uri, body) {
      return reply("GET", uri, body, this.req.headers);
    });
    scope.post(/.*/).reply(function (uri, body) {
      return reply("POST", uri, body, this.req.headers);
    });
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const op = operationOf(init?.method ?? "GET", url.pathname);
    const next = op ? this.nextFault(op) : undefined;
    if (next?.kind === "timeout" || next?.kind === "lost_response") {
      this.takeFault(op!);
      if (next.kind === "lost_response") await globalThis.fetch(input, init);
      return new Promise<Response>((_resolve, reject) => {
        const signal = init?.signal;
        if (signal?.aborted) reject(new DOMException("aborted", "AbortError"));
        signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      });
    }
    return globalThis.fetch(input, init);
  };
}
