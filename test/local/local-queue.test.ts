import { describe, expect, it } from 'vitest';
import { LocalQueue } from '../../local/local-queue';

function queueWithClock(settings: { visibilityTimeoutMs: number; maxReceiveCount: number }) {
  let now = 1_000_000;
  const queue = new LocalQueue<string>({ ...settings, clock: () => now });
  return { queue, advance: (ms: number) => (now += ms) };
}

describe('LocalQueue (SQS standard-queue semantics)', () => {
  it('hides a received message until the visibility timeout, then redelivers it with a new receipt handle', () => {
    const { queue, advance } = queueWithClock({ visibilityTimeoutMs: 1_000, maxReceiveCount: 5 });
    const id = queue.send('{"eventId":"e1"}', 'e1');
    const [first] = queue.receive(10);
    expect(first?.messageId).toBe(id);
    expect(first?.attributes.ApproximateReceiveCount).toBe('1');
    expect(queue.receive(10)).toEqual([]);
    advance(1_000);
    const [second] = queue.receive(10);
    expect(second?.messageId).toBe(id);
    expect(second?.receiptHandle).not.toBe(first?.receiptHandle);
    expect(second?.attributes.ApproximateReceiveCount).toBe('2');
    expect(queue.redeliveries).toBe(1);
  });

  it('deletes only with the current receipt handle, and only while the message is still invisible', () => {
    const { queue, advance } = queueWithClock({ visibilityTimeoutMs: 1_000, maxReceiveCount: 5 });
    queue.send('a', 'a');
    const [first] = queue.receive(1);
    advance(1_500);
    const [second] = queue.receive(1);
    expect(queue.delete(first!.receiptHandle)).toEqual({ deleted: false });
    expect(queue.delete(second!.receiptHandle)).toMatchObject({ deleted: true, meta: 'a', receiveCount: 2 });
    expect(queue.size).toBe(0);
    expect(queue.staleDeletes).toBe(1);
  });

  it('moves a message received maxReceiveCount times to the dead-letter list on the next receive', () => {
    const { queue, advance } = queueWithClock({ visibilityTimeoutMs: 100, maxReceiveCount: 3 });
    queue.send('poison', 'p');
    for (let i = 0; i < 3; i += 1) {
      expect(queue.receive(1)).toHaveLength(1);
      advance(100);
    }
    expect(queue.receive(1)).toEqual([]);
    expect(queue.deadLetters).toMatchObject([{ meta: 'p', receiveCount: 3 }]);
    expect(queue.size).toBe(0);
  });

  it('returns batches oldest first, up to the batch size, and a duplicate send is a new message', () => {
    const { queue } = queueWithClock({ visibilityTimeoutMs: 100, maxReceiveCount: 3 });
    const ids = ['x', 'y', 'x'].map((body) => queue.send(body, body));
    expect(new Set(ids).size).toBe(3);
    expect(queue.receive(2).map((r) => r.body)).toEqual(['x', 'y']);
    expect(queue.receive(2).map((r) => r.body)).toEqual(['x']);
  });
});
