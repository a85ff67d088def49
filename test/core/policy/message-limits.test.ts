import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../functions/core/errors';
import { buildMessageClassRegistry } from '../../../functions/core/policy/message-class';
import { countDigest, describeLimits, numberBlockOf, scopeCounts, type LimitSubject, type MessageLimit } from '../../../functions/core/policy/message-limits';

const registry = buildMessageClassRegistry();
const T0 = Date.parse('2026-11-29T12:03:00.000Z');
const sms: LimitSubject = { eventId: 'e1', recipientId: 'user-1', channel: 'sms', templateId: 'login-code', address: '+14155550123' };

describe('built-in limits', () => {
  it('otp: per address and per recipient 5 per 10 min and 10 per 24 h; per SMS number block 20 per hour', () => {
    const limits = registry.get('otp')!.limits.map(({ scope, max, windowSeconds }) => [scope, max, windowSeconds]);
    expect(limits).toEqual([
      ['address', 5, 600],
      ['address', 10, 86_400],
      ['recipient', 5, 600],
      ['recipient', 10, 86_400],
      ['number-block', 20, 3600],
    ]);
  });

  it('transactional: 50 per address per hour; marketing: 1 per recipient, template and channel per 24 h', () => {
    expect(registry.get('transactional')!.limits).toEqual([{ scope: 'address', max: 50, windowSeconds: 3600, perChannel: false, perTemplate: false }]);
    expect(registry.get('marketing')!.limits).toEqual([{ scope: 'recipient', max: 1, windowSeconds: 86_400, perChannel: true, perTemplate: true }]);
  });

  it('an override that leaves limits out keeps the built-in limits of that name; [] removes them', () => {
    const custom = buildMessageClassRegistry(
      JSON.stringify([{ name: 'otp', onAmbiguous: 'give-up' }, { name: 'marketing', onAmbiguous: 'give-up', limits: [] }, { name: 'new', onAmbiguous: 'resend' }]),
    );
    expect(custom.get('otp')!.limits).toEqual(registry.get('otp')!.limits);
    expect(custom.get('marketing')!.limits).toEqual([]);
    expect(custom.get('new')!.limits).toEqual([]);
  });
});

describe('limits are validated with the class', () => {
  const withLimits = (limits: unknown) => () => buildMessageClassRegistry(JSON.stringify([{ name: 'x', onAmbiguous: 'resend', limits }]));

  it.each([
    ['an unknown scope', [{ scope: 'ip', max: 1, windowSeconds: 60 }], /0\.limits\.0\.scope/],
    ['max 0', [{ scope: 'address', max: 0, windowSeconds: 60 }], /0\.limits\.0\.max/],
    ['a window under a minute', [{ scope: 'address', max: 1, windowSeconds: 59 }], /0\.limits\.0\.windowSeconds/],
    ['an unknown key', [{ scope: 'address', max: 1, windowSeconds: 60, per: 'x' }], /0\.limits\.0/],
    ['a window twice', [{ scope: 'address', max: 1, windowSeconds: 60 }, { scope: 'address', max: 2, windowSeconds: 60 }], /same window is given twice/],
    ['a window that does not divide the longest', [{ scope: 'recipient', max: 1, windowSeconds: 420 }, { scope: 'recipient', max: 2, windowSeconds: 3600 }], /420 s do not/],
  ])('refuses %s, naming it', (_what, limits, message) => {
    expect(withLimits(limits)).toThrow(ConfigurationError);
    expect(withLimits(limits)).toThrow(message);
  });

  it('refuses more than 4 windows for one counter', () => {
    const limits = [60, 120, 300, 600, 1200].map((windowSeconds) => ({ scope: 'address', max: 1, windowSeconds }));
    expect(withLimits(limits)).toThrow(/at most 4 windows/);
  });

  it('accepts 4 windows for one counter: the most one item holds is allowed', () => {
    const limits = [60, 120, 300, 600].map((windowSeconds) => ({ scope: 'address', max: 1, windowSeconds }));
    expect(withLimits(limits)).not.toThrow();
  });

  it.each([
    ['address', { scope: 'address' }],
    ['address per channel', { scope: 'address', perChannel: true }],
    ['recipient per template', { scope: 'recipient', perTemplate: true }],
    ['recipient per channel per template', { scope: 'recipient', perChannel: true, perTemplate: true }],
  ])('a refused counter is named by its scope and partitioning ("%s"), so the operator finds the limits to fix', (name, counter) => {
    const limits = [{ ...counter, max: 1, windowSeconds: 60 }, { ...counter, max: 2, windowSeconds: 60 }];
    expect(withLimits(limits)).toThrow(`MESSAGE_CLASSES is invalid at 0.limits: ${name}: the same window is given twice`);
  });

  it('names every window that does not divide the longest, one after the other', () => {
    const limits = [420, 1000, 3600].map((windowSeconds, i) => ({ scope: 'address', max: i + 1, windowSeconds }));
    expect(withLimits(limits)).toThrow('0.limits: address: every window must divide the longest (3600 s); 420, 1000 s do not');
  });

  it('a limit that leaves perChannel and perTemplate out counts one person across every channel and template', () => {
    const custom = buildMessageClassRegistry(JSON.stringify([{ name: 'x', onAmbiguous: 'resend', limits: [{ scope: 'recipient', max: 3, windowSeconds: 3600 }] }]));
    const limits = custom.get('x')!.limits;
    expect(limits).toEqual([{ scope: 'recipient', max: 3, windowSeconds: 3600, perChannel: false, perTemplate: false }]);
    const partition = (subject: Partial<LimitSubject>) => scopeCounts('x', limits, { ...sms, ...subject }, T0)[0]!.partition;
    expect(partition({ channel: 'email', address: 'a@shop.example', templateId: 'other' })).toBe(partition({}));
  });
});

describe('counters of a message', () => {
  const otp = registry.get('otp')!.limits;

  it('one counter per scope, in the order address, recipient, number block; windows of a scope in one item', () => {
    const counts = scopeCounts('otp', otp, sms, T0);
    expect(counts.map((c) => [c.scope, c.windows.length])).toEqual([
      ['address', 2],
      ['recipient', 2],
      ['number-block', 1],
    ]);
    const day = Math.floor(T0 / 86_400_000);
    expect(counts[0]).toMatchObject({
      sort: `86400:${day}`,
      expiresAt: (day + 1) * 86_400,
      windows: [
        { attribute: `w600_${Math.floor(T0 / 600_000)}`, max: 5, previousAttribute: `w600_${Math.floor(T0 / 600_000) - 1}` },
        { attribute: `w86400_${day}`, max: 10, previousAttribute: undefined },
      ],
    });
  });

  it('the number block is the number without its last 3 digits, and only SMS has one', () => {
    expect(numberBlockOf('+14155550123')).toBe('+14155550');
    const block = (address: string) => scopeCounts('otp', otp, { ...sms, address }, T0).find((c) => c.scope === 'number-block')?.partition;
    expect(block('+14155550999')).toBe(block('+14155550123'));
    expect(block('+14155551123')).not.toBe(block('+14155550123'));
    expect(scopeCounts('otp', otp, { ...sms, channel: 'email', address: 'a@shop.example' }, T0).map((c) => c.scope)).toEqual(['address', 'recipient']);
  });

  it('partition keys hash the value: no address, number or recipient id in the item key', () => {
    for (const counter of scopeCounts('otp', otp, sms, T0)) {
      expect(counter.partition).toMatch(/^limit#[0-9a-f]{32}$/);
      expect(counter.partition).not.toContain('4155550');
    }
  });

  it('a counter is per class, and per channel and template only when the limit says so', () => {
    const marketing = registry.get('marketing')!.limits;
    const partition = (cls: string, limits: typeof otp, subject: Partial<LimitSubject>) => scopeCounts(cls, limits, { ...sms, ...subject }, T0)[0]!.partition;
    expect(partition('otp', otp, {})).not.toBe(partition('transactional', otp, {}));
    expect(partition('marketing', marketing, { channel: 'email', address: 'a@shop.example' })).not.toBe(partition('marketing', marketing, {}));
    expect(partition('marketing', marketing, { templateId: 'a' })).not.toBe(partition('marketing', marketing, { templateId: 'b' }));
    // otp's recipient counter spans channels and templates: one person, every code.
    const recipient = (subject: Partial<LimitSubject>) => scopeCounts('otp', otp, { ...sms, ...subject }, T0)[1]!.partition;
    expect(recipient({ channel: 'email', address: 'a@shop.example', templateId: 'other' })).toBe(recipient({}));
  });

  it('the windows follow the count time given (the first claim), not the attempt', () => {
    const first = scopeCounts('otp', otp, sms, T0);
    expect(scopeCounts('otp', otp, sms, T0 + 59_000)).toEqual(first);
    expect(scopeCounts('otp', otp, sms, T0 + 8 * 60_000)[0]!.windows[0]!.attribute).not.toBe(first[0]!.windows[0]!.attribute);
  });

  it('the counters are written address, recipient, number block whatever order the class gives its limits in', () => {
    const reversed = [...otp].reverse();
    expect(scopeCounts('otp', reversed, sms, T0).map((c) => c.scope)).toEqual(['address', 'recipient', 'number-block']);
  });

  it('reordering a class\'s limits changes nothing in its counters: windows shortest first, the longest (no previous window) last', () => {
    const limits: MessageLimit[] = [
      { scope: 'address', max: 20, windowSeconds: 86_400, perChannel: false, perTemplate: false },
      { scope: 'address', max: 10, windowSeconds: 3600, perChannel: false, perTemplate: false },
      { scope: 'address', max: 5, windowSeconds: 600, perChannel: false, perTemplate: false },
    ];
    const counts = scopeCounts('x', limits, sms, T0);
    expect(counts[0]!.windows.map((w) => [w.max, w.previousAttribute === undefined])).toEqual([
      [5, false],
      [10, false],
      [20, true],
    ]);
    expect(scopeCounts('x', [limits[2]!, limits[0]!, limits[1]!], sms, T0)[0]!.windows).toEqual(counts[0]!.windows);
  });

  it('the counter key of a limit is stable across releases: a change would reset every user\'s count on deploy', () => {
    // The partition is stored in DynamoDB: sha256 of ["notifier-limit-v1", class, scope, channel or "", template or "", value], 32 hex.
    expect(scopeCounts('otp', otp, sms, T0).map((c) => [c.scope, c.partition])).toEqual([
      ['address', 'limit#f43478570380c01df30b285586db9a9a'],
      ['recipient', 'limit#c511312ab3076b755158a67e49878001'],
      ['number-block', 'limit#50ca5a2ea7ba481cad415b968def2f85'],
    ]);
    expect(scopeCounts('marketing', registry.get('marketing')!.limits, sms, T0)[0]!.partition).toBe('limit#223f25e2db4bce76051a060e7705e705');
  });

  it('the digest an event leaves in a counter is stable across releases: a change would count every in-flight message twice', () => {
    // Stored in the counter's sets: the first 16 bytes of sha256 of ["notifier-count-v1", eventId].
    expect(Buffer.from(countDigest('e1')).toString('hex')).toBe('c1bf10ad0cca8d558ce1de66c91016bc');
  });

  it('a counter holds 16 bytes per event: the same for every message of one event, another for another event', () => {
    expect(countDigest('e1')).toHaveLength(16);
    expect(countDigest('e1')).toEqual(countDigest('e1'));
    expect(countDigest('e1')).not.toEqual(countDigest('e2'));
  });
});

describe('limits in a suppression reason', () => {
  const limit = (max: number, windowSeconds: number): MessageLimit => ({ scope: 'address', max, windowSeconds, perChannel: false, perTemplate: false });

  it('lists the limits shortest window first, whatever order the class gives them in', () => {
    expect(describeLimits([limit(10, 86_400), limit(5, 600)])).toBe('5 per 10 min, 10 per 24 h');
  });

  it.each([
    [90, '90 s'],
    [60, '1 min'],
    [600, '10 min'],
    [3600, '1 h'],
    [86_400, '24 h'],
    [90_000, '25 h'],
    [172_800, '2 d'],
    [31 * 86_400, '31 d'],
  ])('a window of %i s reads "%s": days only above one day, hours, minutes, else seconds', (seconds, text) => {
    expect(describeLimits([limit(3, seconds)])).toBe(`3 per ${text}`);
  });
});
