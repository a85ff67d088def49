import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { closeServer, listenOnLoopback, readBody } from './loopback-http';

/** What happens to one PutEvents call as a whole. */
export type PutEventsCallFate =
  | 'answer'
  /** ThrottlingException (400) for the whole call: nothing is put. */
  | 'throttle'
  /** The calling invocation dies before the request is executed: nothing is put, no answer. */
  | 'kill-before'
  /** The request is executed (its entries are on the bus), then the calling invocation dies before the answer. */
  | 'kill-after';

/** One event the bus took. */
export interface BusEvent {
  readonly eventId: string;
  readonly eventBusName: string;
  readonly source: string;
  readonly detailType: string;
  readonly detail: unknown;
  readonly time: string | undefined;
  /** Which PutEvents call put it (0-based). */
  readonly call: number;
}

/** One entry as a PutEvents request carries it. */
export interface PutEventsEntry {
  readonly EventBusName?: string;
  readonly Source?: string;
  readonly DetailType?: string;
  readonly Detail?: string;
  readonly Time?: number | string;
  readonly Resources?: readonly string[];
}

export interface LocalEventBridgeOptions {
  /** The buses that exist (by name). @default ['notifier-outcomes'] */
  readonly busNames?: readonly string[];
  /** Per call, what happens to it. @default every call answered */
  readonly callFate?: (entries: readonly PutEventsEntry[], call: number) => PutEventsCallFate;
  /** Per entry of an answered call: an `ErrorCode` to fail it with (`ThrottlingException`, `InternalFailure`), or undefined to take it. @default every entry taken */
  readonly entryFate?: (entry: PutEventsEntry, call: number) => string | undefined;
  /** Called when a call's fate kills its invocation (the local event source mapping ends it). @default nothing */
  readonly onKill?: () => void;
  /** Called with each event as the bus takes it (the local outcome feed's page and file). @default nothing */
  readonly onTaken?: (event: BusEvent) => void;
}

export interface LocalEventBridge {
  /** Point the SDK client here (AWS_ENDPOINT_URL_EVENTBRIDGE). */
  readonly endpoint: string;
  /** Every event the bus took, in the order it took them. */
  events(): readonly BusEvent[];
  /** How many PutEvents calls arrived. */
  calls(): number;
  /** Refuses (resets) every request until {@link revive}: the killed invocation's environment is gone. */
  readonly dead: { value: boolean };
  revive(): void;
  stop(): Promise<void>;
}

/** PutEvents: 1 to 10 entries (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html). */
const MAX_ENTRIES = 10;
/** The entries of one request total less than 256 KB (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html). */
const MAX_REQUEST_BYTES = 256 * 1024;

/**
 * A local EventBridge speaking awsJson1_1 as the v3 SDK does (`X-Amz-Target: AWSEvents.PutEvents`): it records the
 * events it takes and answers per entry as EventBridge does (an `EventId`, or an `ErrorCode`), refuses what
 * EventBridge refuses (more than 10 entries, 256 KB or more, an entry without source, detail-type or a JSON object
 * detail, an unknown bus), and on demand throttles a call, fails entries, or kills the calling invocation before
 * or after the call executes. Hand-written: no package serves EventBridge's API locally; a test and local
 * fixture, not product code.
 */
export async function startLocalEventBridge(options: LocalEventBridgeOptions = {}): Promise<LocalEventBridge> {
  const buses = new Set(options.busNames ?? ['notifier-outcomes']);
  const taken: BusEvent[] = [];
  const dead = { value: false };
  let callCount = 0;
  const sockets = new Set<Socket>();

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    if (dead.value) return void req.socket.destroy();
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target !== 'AWSEvents.PutEvents') return error(res, 400, 'UnknownOperationException', `${target} is not served here`);
    const call = callCount++;
    const entries = (JSON.parse(body) as { Entries?: PutEventsEntry[] }).Entries ?? [];
    if (entries.length < 1 || entries.length > MAX_ENTRIES) {
      return error(res, 400, 'ValidationException', `Entries must hold 1 to ${MAX_ENTRIES} entries, not ${entries.length}`);
    }
    const bytes = entries.reduce((sum, e) => sum + entryBytes(e), 0);
    if (bytes >= MAX_REQUEST_BYTES) return error(res, 400, 'ValidationException', `Total size of the entries in the request is over the limit (${bytes} bytes)`);
    const fate = options.callFate?.(entries, call) ?? 'answer';
    if (fate === 'throttle') return error(res, 400, 'ThrottlingException', 'Rate exceeded');
    if (fate === 'kill-before') return kill(req.socket);
    const results = entries.map((entry) => take(entry, call));
    if (fate === 'kill-after') return kill(req.socket);
    const failed = results.filter((r) => r.ErrorCode !== undefined).length;
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
    res.end(JSON.stringify({ FailedEntryCount: failed, Entries: results }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  function kill(socket: Socket): void {
    dead.value = true;
    socket.destroy();
    options.onKill?.();
  }

  function take(entry: PutEventsEntry, call: number): { EventId?: string; ErrorCode?: string; ErrorMessage?: string } {
    const busName = entry.EventBusName ?? 'default';
    if (!buses.has(busName.split('/').at(-1) ?? busName)) return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${busName} does not exist.` };
    if (!entry.Source || !entry.DetailType) return { ErrorCode: 'InvalidArgument', ErrorMessage: 'Parameter Source and DetailType are required.' };
    let detail: unknown;
    try {
      detail = JSON.parse(entry.Detail ?? '');
    } catch {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    }
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    const code = options.entryFate?.(entry, call);
    if (code) return { ErrorCode: code, ErrorMessage: `${code} (local fault)` };
    const eventId = randomUUID();
    const time = entry.Time === undefined ? undefined : new Date(typeof entry.Time === 'number' ? entry.Time * 1000 : entry.Time).toISOString();
    const event = { eventId, eventBusName: busName, source: entry.Source, detailType: entry.DetailType, detail, time, call };
    taken.push(event);
    options.onTaken?.(event);
    return { EventId: eventId };
  }

  const port = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    events: () => taken,
    calls: () => callCount,
    dead,
    revive() {
      dead.value = false;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await closeServer(server);
    },
  };
}

/** An entry's size as EventBridge counts it: Time 14 bytes, Source, DetailType, Detail and Resources in UTF-8. */
function entryBytes(entry: PutEventsEntry): number {
  const utf8 = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text, 'utf8'));
  return (entry.Time === undefined ? 0 : 14) + utf8(entry.Source) + utf8(entry.DetailType) + utf8(entry.Detail) + (entry.Resources ?? []).reduce((sum, r) => sum + utf8(r), 0);
}

function error(res: ServerResponse, status: number, code: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
  res.end(JSON.stringify({ __type: code, message }));
}
