import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WireResponse } from './aws-error-shapes';
import { wireRequestOf, type WireRequest, type WireService } from './wire-operation';

/**
 * What can go wrong between an SDK client and its service, each where AWS really fails:
 * - `lose-response`: the service executed the request; the answer never arrives (connection reset).
 * - `delay-response`: executed; the answer comes after `ms` (past the client's timeout).
 * - `reset-before`: the connection resets before the request reaches the service.
 * - `error-before`: the service refuses without executing (a throttle, a 5xx, any error shape).
 * - `error-after`: the service executed, then answered with an error (accepted, then a 5xx).
 * - `hang`: executed; no answer at all until the client gives up.
 * - `late-request`: the request reaches the service only after `ms` (held in the network), after
 *   the client gave up on it and, usually, after its retry: a duplicate from the past.
 */
export type WireFault =
  | { readonly kind: 'lose-response' }
  | { readonly kind: 'delay-response'; readonly ms: number }
  | { readonly kind: 'reset-before' }
  | { readonly kind: 'error-before'; readonly response: WireResponse }
  | { readonly kind: 'error-after'; readonly response: WireResponse }
  | { readonly kind: 'hang' }
  | { readonly kind: 'late-request'; readonly ms: number };

/** Chooses a fault for a request, or none. Called once per HTTP request (so once per SDK attempt). */
export type FaultDecider = (request: WireRequest) => WireFault | undefined;

/** One request that passed the proxy, and what was done to it. */
export interface ProxiedRequest extends WireRequest {
  readonly fault: WireFault['kind'] | 'none';
  /** Whether the service received the request (it may have acted on it). */
  readonly reachedService: boolean;
  /** When the request arrived (epoch ms). */
  readonly at: number;
  /**
   * Whether the client received the service's own answer in full. False when a fault replaced or
   * dropped it, and also when the client gave up first (its own timeout on a slow answer): then the
   * service may have acted without the client knowing. Undefined until the exchange ends.
   */
  serviceAnswerDelivered?: boolean;
}

export interface WireFaultProxy {
  /** Point the SDK client here. */
  readonly endpoint: string;
  /** Every request so far, in arrival order. */
  readonly requests: readonly ProxiedRequest[];
  /** Replaces the decider (for example between test phases). */
  setDecider(decide: FaultDecider): void;
  stop(): Promise<void>;
}

export interface WireFaultProxyOptions {
  readonly service: WireService;
  /** The real (local) service, e.g. `http://127.0.0.1:4567`. */
  readonly target: string;
  /** @default no faults */
  readonly decide?: FaultDecider;
}

/**
 * An HTTP proxy on 127.0.0.1 between one SDK client and one service that injects faults below the
 * SDK, so the SDK's own retries, timeouts and error parsing are part of what is tested. Hand-written
 * (about 100 lines): the fault points are between "executed" and "answered", which no generic
 * proxy library exposes.
 */
export async function startWireFaultProxy(options: WireFaultProxyOptions): Promise<WireFaultProxy> {
  const target = new URL(options.target);
  let decide: FaultDecider = options.decide ?? (() => undefined);
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const wire = wireRequestOf(options.service, req.method ?? 'GET', req.url ?? '/', req.headers, body.toString('utf8'));
      const fault = decide(wire);
      const reachedService = fault === undefined || !['reset-before', 'error-before'].includes(fault.kind);
      const record: ProxiedRequest = { ...wire, fault: fault?.kind ?? 'none', reachedService, at: Date.now() };
      requests.push(record);
      record.serviceAnswerDelivered = false;
      if (fault?.kind === 'reset-before') return req.socket.destroy();
      if (fault?.kind === 'error-before') return answer(res, fault.response);
      if (fault?.kind === 'late-request') {
        const timer = setTimeout(() => {
          timers.delete(timer);
          forward(req, body, (upstream) => {
            if (!res.destroyed) answer(res, upstream);
          });
        }, fault.ms);
        timers.add(timer);
        return;
      }
      forward(req, body, (upstream) => {
        if (!fault) {
          if (res.destroyed || req.socket.destroyed) return; // the client gave up before the answer came
          res.on('finish', () => {
            record.serviceAnswerDelivered = true;
          });
          return answer(res, upstream);
        }
        switch (fault.kind) {
          case 'lose-response':
            return req.socket.destroy();
          case 'delay-response': {
            const timer = setTimeout(() => {
              timers.delete(timer);
              if (!res.destroyed) answer(res, upstream);
            }, fault.ms);
            timers.add(timer);
            return;
          }
          case 'error-after':
            return answer(res, fault.response);
          case 'hang':
            return; // the client's timeout or abort closes the socket
        }
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function forward(req: IncomingMessage, body: Buffer, onAnswer: (response: WireResponse) => void): void {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string' && name !== 'transfer-encoding' && name !== 'connection') headers[name] = value;
          }
          onAnswer({ status: response.statusCode ?? 502, headers, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    upstream.on('error', () => req.socket.destroy());
    upstream.end(body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    setDecider(next) {
      decide = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function answer(res: ServerResponse, response: WireResponse): void {
  const body = Buffer.from(response.body, 'utf8');
  res.writeHead(response.status, { ...response.headers, 'content-length': String(body.length) });
  res.end(body);
}
