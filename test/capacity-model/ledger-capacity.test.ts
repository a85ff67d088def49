import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  deliveryStatusUnits,
  discoverableClaimsPerSecond,
  eventPartitionWriteUnitsPerSecond,
  ledgerUnits,
  limitCounters,
  pendingShardsNeeded,
} from '../../lib/capacity-model/ledger-capacity';
import { BUILT_IN_MESSAGE_CLASSES, type MessageClass } from '../../functions/core/policy/message-class';

const cls = (name: string): MessageClass => BUILT_IN_MESSAGE_CLASSES.find((c) => c.name === name)!;
const UNLIMITED: Pick<MessageClass, 'limits'> = { limits: [] };

describe('ledger units per message (docs/design/ledger.md, "Table keys and what each path writes")', () => {
  it('counts one counter per limited scope; number blocks count SMS only', () => {
    expect(limitCounters(cls('otp'), 'sms')).toBe(3);
    expect(limitCounters(cls('otp'), 'email')).toBe(2);
    expect(limitCounters(cls('transactional'), 'push')).toBe(1);
    expect(limitCounters(cls('marketing'), 'email')).toBe(1);
    expect(limitCounters(UNLIMITED, 'sms')).toBe(0);
  });

  it('a delivered message costs 2 write units and 1 per limited scope, an SMS 1 more for its message-id index entry', () => {
    expect(ledgerUnits('delivered', UNLIMITED, 'email')).toEqual({ writeUnits: 2, readUnits: 0 });
    expect(ledgerUnits('delivered', cls('transactional'), 'email')).toEqual({ writeUnits: 3, readUnits: 0 });
    expect(ledgerUnits('delivered', cls('otp'), 'email')).toEqual({ writeUnits: 4, readUnits: 0 });
    expect(ledgerUnits('delivered', cls('otp'), 'sms')).toEqual({ writeUnits: 6, readUnits: 0 });
    expect(ledgerUnits('delivered', cls('marketing'), 'push')).toEqual({ writeUnits: 3, readUnits: 0 });
  });

  it('prices every other path as the design table does', () => {
    const t = cls('transactional');
    expect(ledgerUnits('delivered-last-receive', t, 'email')).toEqual({ writeUnits: 5, readUnits: 0 });
    expect(ledgerUnits('producer-duplicate', t, 'email')).toEqual({ writeUnits: 1, readUnits: 0 });
    expect(ledgerUnits('redelivered-settled', t, 'email')).toEqual({ writeUnits: 0, readUnits: 1 });
    expect(ledgerUnits('stale-takeover', t, 'email')).toEqual({ writeUnits: 3, readUnits: 1 });
    expect(ledgerUnits('transient-then-delivered', UNLIMITED, 'email')).toEqual({ writeUnits: 4, readUnits: 1 });
    expect(ledgerUnits('transient-then-delivered', t, 'email')).toEqual({ writeUnits: 6, readUnits: 1 });
    expect(ledgerUnits('backed-off', t, 'email')).toEqual({ writeUnits: 1, readUnits: 0 });
    expect(ledgerUnits('suppressed-by-last-counter', cls('otp'), 'sms')).toEqual({ writeUnits: 5, readUnits: 0 });
  });

  it('bills a last receive\'s claim and outcome by the packed claim\'s size, started KB by started KB', () => {
    const t = cls('transactional');
    expect(ledgerUnits('delivered-last-receive', t, 'email', { discoverableClaimBytes: 1024 })).toEqual({ writeUnits: 5, readUnits: 0 });
    expect(ledgerUnits('delivered-last-receive', t, 'email', { discoverableClaimBytes: 1025 })).toEqual({ writeUnits: 7, readUnits: 0 });
    expect(ledgerUnits('delivered-last-receive', cls('otp'), 'sms', { discoverableClaimBytes: 2048 })).toEqual({ writeUnits: 10, readUnits: 0 });
    // Only the last receive keeps the message: a first receive's claim is 1 unit whatever the size given.
    expect(ledgerUnits('delivered', t, 'email', { discoverableClaimBytes: 90_000 })).toEqual({ writeUnits: 3, readUnits: 0 });
  });

  it('reproduces the measured last receive of an HTML order confirmation (npm run bench:sizes): 7, 11 and 17 write units', () => {
    const probe = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'bench', 'results', 'message-sizes.json'), 'utf8')) as {
      rows: { renderedBytes: number; lastReceive: { writeUnits: number; claimItemBytes: number } }[];
    };
    const measured = probe.rows.map((r) => r.lastReceive.writeUnits);
    const modelled = probe.rows.map((r) => ledgerUnits('delivered-last-receive', cls('transactional'), 'email', { discoverableClaimBytes: r.lastReceive.claimItemBytes }).writeUnits);
    expect(measured).toEqual([7, 11, 17]);
    expect(modelled).toEqual(measured);
  });

  it('adds the status Lambda\'s writes: Send and Delivery for an e-mail, one SMS log with logs on, none for push', () => {
    expect(deliveryStatusUnits('email', false)).toEqual({ writeUnits: 2, readUnits: 0 });
    expect(deliveryStatusUnits('sms', true)).toEqual({ writeUnits: 1, readUnits: 0.5 });
    expect(deliveryStatusUnits('sms', false)).toEqual({ writeUnits: 0, readUnits: 0 });
    expect(deliveryStatusUnits('push', true)).toEqual({ writeUnits: 0, readUnits: 0 });
  });
});

describe('heat', () => {
  it('one event\'s partition takes 2 write units per message in flight per message time, never more messages than it has', () => {
    expect(eventPartitionWriteUnitsPerSecond({ maxConcurrentSends: 16, messages: 300, messageMs: 100 })).toBe(320);
    expect(eventPartitionWriteUnitsPerSecond({ maxConcurrentSends: 16, messages: 4, messageMs: 100 })).toBe(80);
  });

  it('a pending-index shard absorbs 500 discoverable claims a second (an entry in and out, 1,000 write units)', () => {
    expect(discoverableClaimsPerSecond(16)).toBe(8000);
    expect(pendingShardsNeeded(8000)).toBe(16);
    expect(pendingShardsNeeded(8001)).toBe(17);
    expect(pendingShardsNeeded(100_000)).toBe(200);
  });
});
