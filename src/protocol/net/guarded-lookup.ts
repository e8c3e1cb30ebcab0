/**
 * The socket's own name lookup (net.connect calls it), judged by the address policy: every
 * address a name resolves to must be allowed, or the connection is refused before it is
 * attempted. The answer checked is the answer used, so DNS rebinding between a check and the
 * connection has nothing to exploit.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { refuseAddress, type AddressPolicy, type UrlRefusal } from "./policy.js";

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has (tests inject one that maps names to loopback). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export type GuardedLookup = (
  hostname: string,
  opts: LookupOptions,
  callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
) => void;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A refusal carried through node's error plumbing (lookup callback, socket.destroy, fetch). */
export class AddressRefusedError extends TypeError {
  constructor(readonly refusal: UrlRefusal) {
    super(`refused by the outbound address policy: ${refusal.message}`);
    this.name = "AddressRefusedError";
  }
}

/** Thrown for a name with no address, or one the resolver could not resolve. */
class LookupFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LookupFailedError";
  }
}

export function createGuardedLookup(
  policy: AddressPolicy,
  resolver: Resolver = systemResolver,
): GuardedLookup {
  return (hostname, opts, callback) => {
    resolver(hostname).then(
      (answers) => {
        if (answers.length === 0) {
          callback(new LookupFailedError(`${hostname} has no address`), "");
          return;
        }
        for (const a of answers) {
          const refused = refuseAddress(policy, a.address);
          if (refused !== undefined)
            return callback(
              new AddressRefusedError({
                code: "non_public_address",
                message: `${hostname} resolves to ${refused.address}, which is not public (${refused.addressClass})`,
                ...refused,
              }),
              "",
            );
        }
        const wanted = answers.filter(
          (a) => opts.family === undefined || opts.family === 0 || a.family === opts.family,
        );
        const usable = wanted.length > 0 ? wanted : answers;
        const first = usable[0] as ResolvedAddress; // answers is not empty
        if (opts.all === true)
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, first.address, first.family);
      },
      (error: unknown) => {
        const message = `cannot resolve ${hostname}: ${error instanceof Error ? error.message : String(error)}`;
        callback(new LookupFailedError(message), "");
      },
    );
  };
}

/** Whether a host name's current answer is allowed (a pre-check; the socket's lookup decides). */
export async function refuseName(
  hostname: string,
  policy: AddressPolicy,
  resolver: Resolver = systemResolver,
): Promise<UrlRefusal | undefined> {
  let answers: readonly ResolvedAddress[];
  try {
    answers = await resolver(hostname);
  } catch {
    return undefined; // unresolvable: nothing can be sent there either
  }
  for (const a of answers) {
    const refused = refuseAddress(policy, a.address);
    if (refused !== undefined)
      return {
        code: "non_public_address",
        message: `${hostname} resolves to a non-public address`,
        ...refused,
      };
  }
  return undefined;
}
