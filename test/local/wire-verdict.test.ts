import { describe, expect, it } from 'vitest';
import { keyPrefix } from '../../functions/core/event/idempotency-key';
import { judgeWireRun, wireVerdictHolds } from '../../local/aws/wire-verdict';

const judge = (overrides: Partial<Parameters<typeof judgeWireRun>[0]>) =>
  judgeWireRun({
    deliverableKeys: ['a'],
    acceptedPerKey: new Map([['a', 1]]),
    finalStates: new Map([['a', 'SENT']]),
    providerRequests: [{ key: 'a', reachedWithoutAnswer: false, rejected: false }],
    ...overrides,
  });

describe('wire verdict: judged from the providers\' counts, not the sender\'s', () => {
  it('a resend counted as a possible duplicate is judged against the requests that may have reached the provider', () => {
    const key = `${'e'.repeat(16)}${'k'.repeat(48)}`;
    const prefix = keyPrefix(key); // what the sender logs
    const one = (overrides: Partial<Parameters<typeof judgeWireRun>[0]>) =>
      judge({ deliverableKeys: [key], acceptedPerKey: new Map([[key, 1]]), finalStates: new Map([[key, 'SENT']]), providerRequests: [], ...overrides });
    expect(one({ countedResends: new Map([[prefix, 1]]) })).toMatchObject({ possibleDuplicatesWithoutAmbiguity: 1, examples: { counted: [key] } });
    const explained = one({ countedResends: new Map([[prefix, 1]]), providerRequests: [{ key, reachedWithoutAnswer: true, rejected: false }] });
    expect(explained.possibleDuplicatesWithoutAmbiguity).toBe(0);
    expect(one({ countedResends: new Map([[prefix, 2]]), killedInFlight: new Map([[key, 1]]) }).possibleDuplicatesWithoutAmbiguity).toBe(1);
  });

  it('one accepted send and SENT holds', () => {
    expect(wireVerdictHolds(judge({}))).toBe(true);
  });

  it('a second send explained by an earlier request that reached the provider without its answer reaching the sender is allowed, and counted', () => {
    const v = judge({
      acceptedPerKey: new Map([['a', 2]]),
      providerRequests: [
        { key: 'a', reachedWithoutAnswer: true, rejected: false },
        { key: 'a', reachedWithoutAnswer: false, rejected: false },
      ],
    });
    expect(v).toMatchObject({ unexplainedDuplicates: 0, explainedDuplicates: 1 });
  });

  it('with the sender\'s counted resends given, a second send explained by a request but never counted is unexplained (a resend in place)', () => {
    const key = `${'e'.repeat(16)}${'k'.repeat(48)}`;
    const twice = (countedResends: ReadonlyMap<string, number>) =>
      judge({
        deliverableKeys: [key],
        acceptedPerKey: new Map([[key, 2]]),
        finalStates: new Map([[key, 'SENT']]),
        providerRequests: [{ key, reachedWithoutAnswer: true, rejected: false }],
        countedResends,
      });
    const uncounted = twice(new Map());
    expect(uncounted).toMatchObject({ unexplainedDuplicates: 1, uncountedDuplicates: 1, explainedDuplicates: 0, examples: { duplicate: [key] } });
    expect(wireVerdictHolds(uncounted)).toBe(false);
    expect(twice(new Map([[keyPrefix(key), 1]]))).toMatchObject({ unexplainedDuplicates: 0, uncountedDuplicates: 0, explainedDuplicates: 1 });
  });

  it('a second send after only certain refusals is an unexplained duplicate', () => {
    const v = judge({
      acceptedPerKey: new Map([['a', 2]]),
      providerRequests: [
        { key: 'a', reachedWithoutAnswer: false, rejected: false },
        { key: 'a', reachedWithoutAnswer: false, rejected: false },
        { key: 'a', reachedWithoutAnswer: false, rejected: false },
      ],
    });
    expect(v).toMatchObject({ unexplainedDuplicates: 1, examples: { duplicate: ['a'] } });
    expect(wireVerdictHolds(v)).toBe(false);
  });

  it('UNKNOWN needs a request that may have reached the provider; FAILED needs a rejection; PENDING is lost', () => {
    const v = judgeWireRun({
      deliverableKeys: ['u', 'u2', 'f', 'f2', 'p', 'm'],
      acceptedPerKey: new Map([['u2', 1]]),
      finalStates: new Map([
        ['u', 'UNKNOWN'],
        ['u2', 'UNKNOWN'],
        ['f', 'FAILED'],
        ['f2', 'FAILED'],
        ['p', 'PENDING'],
      ]),
      providerRequests: [
        { key: 'u', reachedWithoutAnswer: false, rejected: false },
        { key: 'u2', reachedWithoutAnswer: true, rejected: false },
        { key: 'f', reachedWithoutAnswer: false, rejected: true },
        { key: 'f2', reachedWithoutAnswer: false, rejected: false },
      ],
    });
    expect(v).toMatchObject({ unknownWithoutAmbiguity: 1, failedWithoutRejection: 1, lost: 2 });
    expect(v.examples).toMatchObject({ unknown: ['u'], failed: ['f2'], lost: ['p', 'm'] });
    expect(v.states).toEqual({ PENDING: 1, SENT: 0, FAILED: 2, UNKNOWN: 2, SUPPRESSED: 0, missing: 1 });
  });
});
