/**
 * xandikos accepts any password, so CalDAV tests that must see a wrong password refused put
 * this in front of it: 401 unless the request's Basic credentials match, otherwise the request
 * goes to xandikos unchanged (method, path, headers, body streamed both ways).
 */
import { createServer, request, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface BasicAuthProxy {
  readonly server: Server;
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  close(): Promise<void>;
}

export async function startBasicAuthProxy(
  upstream: URL,
  user: string,
  password: string,
  onRequest?: (req: IncomingMessage) => void,
): Promise<BasicAuthProxy> {
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  const server = createServer((req, res) => {
    onRequest?.(req);
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="caldav"' }).end();
      return;
    }
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.writeHead(502).end());
    req.pipe(out);
  });
  const url = await new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`),
    ),
  );
  return {
    server,
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
