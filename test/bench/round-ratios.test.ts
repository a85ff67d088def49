import { describe, expect, it } from 'vitest';
import { isBalanced, ratioText, rotation, summariseRatios } from '../../bench/latency/round-ratios';

describe('per-round ratios', () => {
  it('prints a ratio under 1 as slower, and one at or above 1 plainly', () => {
    expect(ratioText(0.934)).toBe('0.93x (slower)');
    expect(ratioText(1.5)).toBe('1.50x');
    expect(ratioText(1)).toBe('1.00x');
  });

  it('summarises rounds by median (middle pair averaged), lowest and highest', () => {
    expect(summariseRatios([1.2, 0.9, 1.1, 1.0])).toEqual({ median: 1.05, min: 0.9, max: 1.2 });
    expect(summariseRatios([1.3, 0.8, 1.0])).toEqual({ median: 1.0, min: 0.8, max: 1.3 });
  });

  it('fails on no rounds', () => {
    expect(() => summariseRatios([])).toThrow(/no rounds/);
  });

  it('rotates the order one place a round, so two senders alternate going first', () => {
    expect(rotation(['a', 'b'], 0)).toEqual(['a', 'b']);
    expect(rotation(['a', 'b'], 1)).toEqual(['b', 'a']);
    expect(rotation(['a', 'b', 'c'], 2)).toEqual(['c', 'a', 'b']);
    expect(isBalanced(2, 4)).toBe(true);
    expect(isBalanced(2, 3)).toBe(false);
  });
});
