import { describe, expect, it } from 'vitest';
import { isRefusal, isRejection, PROVIDER_WIRE_ERRORS } from '../../local/aws/provider-error-catalog';

// The wire run draws its "refusal" faults from isRefusal and its "rejection" faults from isRejection, and judges a
// FAILED row by whether a rejection reached it: an error in the wrong pool breaks the verdict, not the sender.
describe('the provider error catalogue, split into the wire faults it feeds', () => {
  it('a refusal is only what certainly did not send and may be tried again (a transient cause)', () => {
    for (const error of PROVIDER_WIRE_ERRORS.filter(isRefusal)) {
      expect(['permanent', 'withdrawn-consent', 'ambiguous'], `${error.service} ${error.code} ${error.modeled?.reason ?? ''}`).not.toContain(error.expected);
    }
  });

  it('a rejection is a permanent refusal of the recipient or the content, a withdrawn consent included', () => {
    const rejections = PROVIDER_WIRE_ERRORS.filter(isRejection);
    expect(rejections.every((e) => e.expected === 'permanent' || e.expected === 'withdrawn-consent')).toBe(true);
    expect(rejections.some((e) => e.expected === 'withdrawn-consent')).toBe(true);
  });

  it('every error is in exactly one pool, or is ambiguous', () => {
    for (const error of PROVIDER_WIRE_ERRORS) {
      const pools = [isRefusal(error), isRejection(error), error.expected === 'ambiguous'].filter(Boolean);
      expect(pools, `${error.service} ${error.code}`).toHaveLength(1);
    }
  });
});
