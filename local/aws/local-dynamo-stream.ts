import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { type AttributeValue, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { LEDGER_TABLE } from '../../functions/core/ledger/ledger-table';
import { crc32 } from 'node:zlib';
import { closeServer, forwardToLoopback, listenOnLoopback, readBody, replay, type BufferedAnswer } from './loopback-http';

/** DynamoDB Streams keeps a stream record for 24 hours (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html). */
export const STREAM_RETENTION_MS = 24 * 60 * 60 * 1000;

/** One stream record, with when it was written (the stand-in's clock). */
export interface StoredStreamRecord {
  readonly record: DynamoDBRecord;
  readonly writtenAtMs: number;
}

export interface LocalDynamoStreamOptions {
  /** The local DynamoDB (dynalite) the writes go to, e.g. `http://127.0.0.1:4567`. */
  readonly target: string;
  /** @default Date.now */
  readonly clock?: () => number;
}

export interface LocalDynamoStream {
  /** Point the ledger's DynamoDB client here. */
  readonly endpoint: string;
  /**
   * The records after `afterSequence` (all when undefined), oldest first, at most `limit`, within the 24 hours
   * the stream keeps them; older ones are gone, as in DynamoDB Streams.
   */
  read(afterSequence: string | undefined, limit: number): readonly DynamoDBRecord[];
  /** Every record written so far, expired ones included (for tests). */
  all(): readonly StoredStreamRecord[];
  stop(): Promise<void>;
}

const WRITES = new Set(['DynamoDB_20120810.PutItem', 'DynamoDB_20120810.UpdateItem', 'DynamoDB_20120810.DeleteItem']);
const UNMODELLED = new Set(['DynamoDB_20120810.BatchWriteItem', 'DynamoDB_20120810.TransactWriteItems', 'DynamoDB_20120810.ExecuteStatement']);

/**
 * A DynamoDB stream (`NEW_AND_OLD_IMAGES`) over the local DynamoDB, which has none (dynalite implements no
 * streams): a loopback proxy in front of it that, for every PutItem, UpdateItem and DeleteItem, knows the item
 * before and after the write (the image its last write left, or a strongly consistent read the first time; the
 * write's own return values, asked of dynalite and taken out of the caller's answer; the item's writes serialized
 * so the images are exact) and appends one record when the item changed, as DynamoDB Streams does: none for a write that changed nothing or
 * whose condition failed, the records of one item in the order of its writes, sequence numbers that only grow,
 * kept 24 hours. Delivery (at least once, again after a failed invocation) is the local event source mapping's
 * (local/aws/dynamo-stream-event-source.ts). Hand-written because no package emulates DynamoDB Streams over
 * dynalite; the batch and transaction writes the product never makes are refused, not passed by unrecorded.
 */
export async function startLocalDynamoStream(options: LocalDynamoStreamOptions): Promise<LocalDynamoStream> {
  const clock = options.clock ?? Date.now;
  const target = new URL(options.target);
  const reader = new DynamoDBClient({ endpoint: options.target, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const log: StoredStreamRecord[] = [];
  const locks = new Map<string, Promise<void>>();
  // Each item as its last write through here left it (every write passes here): with the write's own return
  // values, a write costs no extra read once its item is known, so a local run's invocations keep their time.
  const current = new Map<string, WireItem | undefined>();
  const sockets = new Set<Socket>();
  let sequence = 100_000_000_000_000_000_000n;

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const operation = String(req.headers['x-amz-target'] ?? '');
    if (UNMODELLED.has(operation)) {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      return void res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ValidationException', message: `${operation} is not recorded by the local stream` }));
    }
    if (!WRITES.has(operation)) return replay(res, await forwardToLoopback(Number(target.port), req, body));
    const request = JSON.parse(body) as WriteRequest;
    const source = request.Key ?? request.Item ?? {};
    const key = { [LEDGER_TABLE.partitionKey]: source[LEDGER_TABLE.partitionKey]!, [LEDGER_TABLE.sortKey]: source[LEDGER_TABLE.sortKey]! };
    const item = `${request.TableName}|${JSON.stringify(key)}`;
    await serialized(item, async () => {
      // A write that asks for no values is asked for the image it lacks (the new one of an update, the old one of
      // a put or delete), and answered without it, as its caller asked.
      const borrowed = request.ReturnValues === undefined || request.ReturnValues === 'NONE';
      const asked = operation === 'DynamoDB_20120810.UpdateItem' ? 'ALL_NEW' : 'ALL_OLD';
      const forwarded = borrowed ? JSON.stringify({ ...request, ReturnValues: asked }) : body;
      const knownBefore = current.has(item) || (borrowed && asked === 'ALL_OLD');
      const before = knownBefore ? current.get(item) : await itemOf(request.TableName, key);
      const answer = await forwardToLoopback(Number(target.port), req, forwarded);
      if (answer.status !== 200) {
        // A server error may or may not have written: read the item again next time.
        if (answer.status >= 500) current.delete(item);
        return replay(res, answer);
      }
      const returned = borrowed ? (JSON.parse(answer.body.toString('utf8')) as { Attributes?: WireItem }).Attributes : undefined;
      const old = borrowed && asked === 'ALL_OLD' ? returned : before;
      const after = !borrowed
        ? await itemOf(request.TableName, key)
        : operation === 'DynamoDB_20120810.UpdateItem'
          ? returned
          : operation === 'DynamoDB_20120810.PutItem'
            ? (request.Item as WireItem)
            : undefined;
      current.set(item, after);
      if (!isDeepStrictEqual(old, after)) append(key, old, after);
      replay(res, borrowed ? withoutAttributes(answer) : answer);
    });
  });
  async function serialized(item: string, work: () => Promise<void>): Promise<void> {
    const previous = locks.get(item) ?? Promise.resolve();
    const mine = previous.then(work, work);
    locks.set(item, mine.catch(() => undefined));
    await mine;
  }

  async function itemOf(tableName: string, key: Record<string, AttributeValue>): Promise<WireItem | undefined> {
    const result = await reader.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    return result.Item ? (wire(result.Item) as WireItem) : undefined;
  }

  function append(key: Record<string, AttributeValue>, before: WireItem | undefined, after: WireItem | undefined): void {
    sequence += 1n;
    const now = clock();
    const image = (item: WireItem | Record<string, AttributeValue> | undefined) => (item ? (wire(item) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage']) : undefined);
    log.push({
      writtenAtMs: now,
      record: {
        eventID: randomUUID().replaceAll('-', ''),
        eventName: before === undefined ? 'INSERT' : after === undefined ? 'REMOVE' : 'MODIFY',
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: 'us-east-1',
        dynamodb: {
          ApproximateCreationDateTime: Math.floor(now / 1000),
          Keys: image(key),
          ...(after ? { NewImage: image(after) } : {}),
          ...(before ? { OldImage: image(before) } : {}),
          SequenceNumber: sequence.toString(),
          SizeBytes: Buffer.byteLength(JSON.stringify([key, before, after])),
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
      },
    });
  }

  const port = await listenOnLoopback(server);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    read(afterSequence, limit) {
      const horizon = clock() - STREAM_RETENTION_MS;
      const after = afterSequence === undefined ? -1n : BigInt(afterSequence);
      return log
        .filter((stored) => stored.writtenAtMs > horizon && BigInt(stored.record.dynamodb!.SequenceNumber!) > after)
        .slice(0, limit)
        .map((stored) => stored.record);
    },
    all: () => log,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await closeServer(server);
      reader.destroy();
    },
  };
}

/** An item as DynamoDB's JSON protocol carries it (binary attributes as base64 text). */
type WireItem = Readonly<Record<string, unknown>>;

/** A write request's fields the stream reads. */
interface WriteRequest {
  readonly TableName: string;
  readonly Key?: Record<string, AttributeValue>;
  readonly Item?: Record<string, AttributeValue>;
  readonly ReturnValues?: string;
}

/** The answer without the `Attributes` the stream asked for, its CRC32 header made right again. */
function withoutAttributes(answer: BufferedAnswer): BufferedAnswer {
  const { Attributes: _attributes, ...rest } = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
  const body = Buffer.from(JSON.stringify(rest));
  return { ...answer, body, headers: { ...answer.headers, ...(answer.headers['x-amz-crc32'] ? { 'x-amz-crc32': String(crc32(body)) } : {}) } };
}

/** An item as the stream's JSON carries it: binary attributes as base64 text, as in a Lambda event. */
function wire(item: WireItem | Record<string, AttributeValue>): unknown {
  return JSON.parse(JSON.stringify(item, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value)));
}
