import type { Server } from 'node:http';
import { closeServer, listenOnLoopback } from './loopback-http';

/** What a local provider offers a run: its endpoint and the sends it accepted, counted on its side of the wire. */
export interface LocalProviderSends<Accepted> {
  /** `http://127.0.0.1:PORT`: the client's `endpoint`, or its AWS_ENDPOINT_URL_* variable. */
  readonly endpoint: string;
  /** Accepted sends by idempotency key, counted here, not by the sender. */
  acceptedPerKey(): ReadonlyMap<string, number>;
  /** Every accepted send, in order. */
  accepted(): readonly Accepted[];
  stop(): Promise<void>;
}

/** Accepted sends per idempotency key; sends that carried no key are not counted. */
export function countByKey(sends: readonly { readonly key: string | undefined }[]): ReadonlyMap<string, number> {
  const counts = new Map<string, number>();
  for (const send of sends) if (send.key !== undefined) counts.set(send.key, (counts.get(send.key) ?? 0) + 1);
  return counts;
}

/** Listens on a loopback port and offers what the server accepted in `accepted` (a list it keeps appending to). */
export async function serveProviderSends<Accepted extends { readonly key: string | undefined }>(
  server: Server,
  accepted: readonly Accepted[],
): Promise<LocalProviderSends<Accepted> & { readonly outboxUrl: string }> {
  const endpoint = `http://127.0.0.1:${await listenOnLoopback(server)}`;
  return {
    endpoint,
    outboxUrl: `${endpoint}/`,
    acceptedPerKey: () => countByKey(accepted),
    accepted: () => [...accepted],
    stop: () => closeServer(server),
  };
}
