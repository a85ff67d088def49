import { describe, expect, it } from 'vitest';
import { AMBIGUITY_LOOP_LIMIT, isAmbiguityLoop, nextAmbiguityStreak } from '../../../functions/core/ledger/ambiguity-loop';

describe('an ambiguity loop: the same failure without an answer from the provider, call after call', () => {
  it('the same unanswered failure adds a call; another one starts a new streak; an answer from the provider ends it', () => {
    const first = nextAmbiguityStreak(undefined, 'ECONNRESET');
    expect(first).toEqual({ unanswered: 'ECONNRESET', calls: 1 });
    expect(nextAmbiguityStreak(first, 'ECONNRESET')).toEqual({ unanswered: 'ECONNRESET', calls: 2 });
    expect(nextAmbiguityStreak({ unanswered: 'ECONNRESET', calls: 2 }, 'AbortError')).toEqual({ unanswered: 'AbortError', calls: 1 });
    expect(nextAmbiguityStreak({ unanswered: 'ECONNRESET', calls: 2 }, undefined)).toBeUndefined();
  });

  it(`ends at ${AMBIGUITY_LOOP_LIMIT} calls in a row, not before`, () => {
    expect(AMBIGUITY_LOOP_LIMIT).toBe(3);
    expect(isAmbiguityLoop(undefined)).toBe(false);
    expect(isAmbiguityLoop({ unanswered: 'URIError', calls: 2 })).toBe(false);
    expect(isAmbiguityLoop({ unanswered: 'URIError', calls: 3 })).toBe(true);
    let streak: ReturnType<typeof nextAmbiguityStreak>;
    const loopsAt: number[] = [];
    for (let call = 1; call <= 4; call += 1) {
      streak = nextAmbiguityStreak(streak, 'ProviderAdapterError');
      if (isAmbiguityLoop(streak)) loopsAt.push(call);
    }
    expect(loopsAt[0]).toBe(3);
  });
});
