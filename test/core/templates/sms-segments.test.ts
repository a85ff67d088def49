import fc from 'fast-check';
import { SegmentedMessage } from 'sms-segments-calculator';
import { describe, expect, it } from 'vitest';
import { isGsm7, smsSize } from '../../../functions/core/templates/sms-segments';

const parts = (text: string) => smsSize(text).segments;

describe('SMS parts and encoding', () => {
  it('GSM-7: 160 characters in one part, then 153 a part', () => {
    expect(smsSize('a'.repeat(160))).toEqual({ encoding: 'GSM-7', segments: 1 });
    expect(parts('a'.repeat(161))).toBe(2);
    expect(parts('a'.repeat(306))).toBe(2);
    expect(parts('a'.repeat(307))).toBe(3);
  });

  it('GSM-7 extension characters take two septets and are never split across parts', () => {
    expect(smsSize('€'.repeat(80))).toEqual({ encoding: 'GSM-7', segments: 1 });
    expect(parts('€'.repeat(81))).toBe(2);
    // 152 septets, then an extension character that would straddle the 153rd: it moves to part two.
    expect(parts(`${'a'.repeat(152)}{${'a'.repeat(8)}`)).toBe(2);
    expect(parts(`${'a'.repeat(152)}{${'a'.repeat(152)}`)).toBe(3);
  });

  it('UCS-2 as soon as one character is outside GSM 03.38: 70 units in one part, then 67', () => {
    expect(smsSize(`${'a'.repeat(69)}✓`)).toEqual({ encoding: 'UCS-2', segments: 1 });
    expect(parts(`${'a'.repeat(70)}✓`)).toBe(2);
    expect(parts('あ'.repeat(134))).toBe(2);
    expect(parts('あ'.repeat(135))).toBe(3);
  });

  it('a surrogate pair is two units and is never split across parts', () => {
    expect(parts('😀'.repeat(35))).toBe(1);
    expect(parts('😀'.repeat(36))).toBe(2);
    expect(parts('😀'.repeat(67))).toBe(3); // 33 pairs a part
  });

  it('tells GSM-7 text from the rest', () => {
    expect(isGsm7('Hello {€} [~] \\ | ^ ΔΩ äöü é\n\r\f')).toBe(true);
    expect(isGsm7('ç')).toBe(false);
    expect(isGsm7('`')).toBe(false);
  });

  it("agrees with Twilio's segment calculator on any text of single-code-point characters", () => {
    // Characters that are one grapheme each (the calculator counts graphemes, carriers count characters).
    const character = fc.oneof(
      fc.constantFrom(...'aZ0 .,!?@£$¥èéÇ\nΔΩäöñüà_'.split('')),
      fc.constantFrom(...'{}[]~^|\\€\f'.split('')),
      fc.constantFrom('ç', '✓', 'あ', 'ж', 'ß', '😀', '🎉', '中'),
    );
    fc.assert(
      fc.property(fc.array(character, { maxLength: 700, size: 'max' }), (characters) => {
        const text = characters.join('');
        const theirs = new SegmentedMessage(text);
        expect(smsSize(text)).toEqual({ encoding: theirs.encodingName, segments: theirs.segmentsCount });
      }),
      { numRuns: 400 },
    );
  });
});
