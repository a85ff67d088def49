import { createHash, randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import type { Clock } from '../functions/core/clock';

/** How the local queue behaves; the defaults mirror the CDK stack's shape, scaled down in time. */
export interface LocalQueueSettings {
  /** A received message stays invisible this long unless deleted. */
  readonly visibilityTimeoutMs: number;
  /** Receives after which the next receive moves the message to the dead-letter list (SQS redrive policy). */
  readonly maxReceiveCount: number;
  /** @default Date.now */
  readonly clock?: Clock;
  /** Queue ARN put on every record. @default a loopback-looking ARN */
  readonly arn?: string;
}

/** A message as it sits in the queue. `meta` is the producer's side-channel for reports; the handler never sees it. */
interface StoredMessage<M> {
  readonly messageId: string;
  readonly body: string;
  readonly md5OfBody: string;
  readonly sentAt: number;
  readonly meta: M;
  receiveCount: number;
  firstReceiveAt: number | undefined;
  visibleAt: number;
  receiptHandle: string | undefined;
}

/** A message moved to the dead-letter list after `maxReceiveCount` receives. */
export interface DeadLetteredMessage<M> {
  readonly messageId: string;
  readonly body: string;
  readonly meta: M;
  readonly receiveCount: number;
}

/** What `delete` found. */
export type DeleteResult<M> =
  | { readonly deleted: true; readonly messageId: string; readonly sentAt: number; readonly receiveCount: number; readonly meta: M }
  | { readonly deleted: false };

/**
 * An in-memory queue with SQS standard-queue semantics, at least once:
 * - `receive` hides each returned message for the visibility timeout and hands out a new
 *   receipt handle (the messageId stays, as on SQS; a producer's duplicate send is a new message);
 * - only `delete` with the current receipt handle removes a message; anything not deleted in
 *   time (a batch item failure, a crashed or timed-out invocation) becomes visible again;
 * - a message already received `maxReceiveCount` times goes to the dead-letter list instead.
 *
 * Hand-written: no in-memory SQS with visibility timeouts and redrive exists as a small, kept package.
 */
export class LocalQueue<M = undefined> {
  private readonly messages = new Map<string, StoredMessage<M>>();
  private readonly byHandle = new Map<string, StoredMessage<M>>();
  private readonly waiters = new Set<() => void>();
  private readonly clock: Clock;
  private readonly arn: string;
  readonly deadLetters: DeadLetteredMessage<M>[] = [];
  /** Deletes that came with a receipt handle no longer current (the message was redelivered meanwhile). */
  staleDeletes = 0;
  /** Receives that returned a message already received before. */
  redeliveries = 0;

  constructor(private readonly settings: LocalQueueSettings) {
    this.clock = settings.clock ?? Date.now;
    this.arn = settings.arn ?? 'arn:aws:sqs:us-east-1:000000000000:local-notifications';
  }

  send(body: string, meta: M): string {
    const messageId = randomUUID();
    const now = this.clock();
    this.messages.set(messageId, {
      messageId,
      body,
      md5OfBody: createHash('md5').update(body).digest('hex'),
      sentAt: now,
      meta,
      receiveCount: 0,
      firstReceiveAt: undefined,
      visibleAt: now,
      receiptHandle: undefined,
    });
    this.wake();
    return messageId;
  }

  /** Up to `max` visible messages, oldest first, each now invisible for the visibility timeout. */
  receive(max: number): SQSRecord[] {
    const now = this.clock();
    const records: SQSRecord[] = [];
    for (const message of this.messages.values()) {
      if (records.length >= max) break;
      if (message.visibleAt > now) continue;
      if (message.receiveCount >= this.settings.maxReceiveCount) {
        this.moveToDeadLetters(message);
        continue;
      }
      if (message.receiptHandle) this.byHandle.delete(message.receiptHandle);
      if (message.receiveCount > 0) this.redeliveries += 1;
      message.receiveCount += 1;
      message.firstReceiveAt ??= now;
      message.visibleAt = now + this.settings.visibilityTimeoutMs;
      message.receiptHandle = `local-rh-${randomUUID()}`;
      this.byHandle.set(message.receiptHandle, message);
      records.push(this.toRecord(message));
    }
    return records;
  }

  /** Deletes a message, only with its current receipt handle and only while it is still invisible. */
  delete(receiptHandle: string): DeleteResult<M> {
    const message = this.byHandle.get(receiptHandle);
    if (!message || message.visibleAt <= this.clock()) {
      this.staleDeletes += 1;
      return { deleted: false };
    }
    this.byHandle.delete(receiptHandle);
    this.messages.delete(message.messageId);
    this.wake();
    return { deleted: true, messageId: message.messageId, sentAt: message.sentAt, receiveCount: message.receiveCount, meta: message.meta };
  }

  /** Messages in the queue, visible or in flight (not dead-lettered). */
  get size(): number {
    return this.messages.size;
  }

  /** When the next invisible message becomes visible, if any is waiting. */
  nextVisibleAt(): number | undefined {
    let next: number | undefined;
    for (const message of this.messages.values()) {
      if (next === undefined || message.visibleAt < next) next = message.visibleAt;
    }
    return next;
  }

  /** Resolves when a message is sent or deleted, or after `ms`. */
  waitForChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(ms, 1));
      this.waiters.add(done);
    });
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private moveToDeadLetters(message: StoredMessage<M>): void {
    if (message.receiptHandle) this.byHandle.delete(message.receiptHandle);
    this.messages.delete(message.messageId);
    this.deadLetters.push({ messageId: message.messageId, body: message.body, meta: message.meta, receiveCount: message.receiveCount });
    this.wake();
  }

  private toRecord(message: StoredMessage<M>): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: message.receiptHandle ?? '',
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local-producer',
        ApproximateFirstReceiveTimestamp: String(message.firstReceiveAt ?? message.sentAt),
      },
      messageAttributes: {},
      md5OfBody: message.md5OfBody,
      eventSource: 'aws:sqs',
      eventSourceARN: this.arn,
      awsRegion: 'us-east-1',
    };
  }
}
