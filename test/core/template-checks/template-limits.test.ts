import { describe, expect, it } from 'vitest';
import { pushPayloads, largestPlatformPayloadBytes } from '../../../functions/core/templates/push-payload';
import { templateFigures } from '../../../functions/core/template-checks/template-limits';
import { checkTemplateFiles } from '../../../functions/core/template-checks/template-registry';

const problemsOf = (content: unknown) => checkTemplateFiles([{ name: 't.json', text: JSON.stringify(content) }]).problems;
const figuresOf = (content: unknown) => checkTemplateFiles([{ name: 't.json', text: JSON.stringify(content) }]).templates[0]?.figures;

/** An SMS template that is nothing but one field of `maxLength`. */
const smsOf = (maxLength: number, charset: 'gsm7' | 'unicode', maxSegments: number) => ({
  fields: { v: { maxLength, charset } },
  sms: { text: '{{v}}', maxSegments },
});

describe('SMS: parts counted on the worst case the declarations allow', () => {
  it('a unicode field is counted as UCS-2: 70 units are one part, 71 are two', () => {
    expect(figuresOf(smsOf(70, 'unicode', 1))?.sms).toEqual({ encoding: 'UCS-2', segments: 1, maxSegments: 1 });
    expect(problemsOf(smsOf(71, 'unicode', 1))).toEqual([
      { file: 't.json', path: 'sms.text', message: 'can take 2 SMS parts (UCS-2) with every field at its maxLength; sms.maxSegments allows 1' },
    ]);
  });

  it('a gsm7 field is counted with extension characters, two septets each: 80 fit in one part, 81 do not', () => {
    expect(figuresOf(smsOf(80, 'gsm7', 1))?.sms).toEqual({ encoding: 'GSM-7', segments: 1, maxSegments: 1 });
    expect(figuresOf(smsOf(81, 'gsm7', 2))?.sms).toEqual({ encoding: 'GSM-7', segments: 2, maxSegments: 2 });
  });

  it('surrogate pairs are tried too: a pair is never split, so 134 units can need three parts where 134 single units need two', () => {
    expect(figuresOf(smsOf(134, 'unicode', 3))?.sms).toEqual({ encoding: 'UCS-2', segments: 3, maxSegments: 3 });
  });

  it('tries surrogate pairs in both alignments: after one static unit, a pair-first fill fits where a shifted one does not', () => {
    expect(figuresOf({ fields: { v: { maxLength: 132 } }, sms: { text: 'x{{v}}', maxSegments: 2 } })?.sms).toEqual({
      encoding: 'UCS-2',
      segments: 2,
      maxSegments: 2,
    });
    expect(problemsOf({ fields: { v: { maxLength: 133 } }, sms: { text: 'x{{v}}', maxSegments: 2 } })[0]?.message).toBe(
      'can take 3 SMS parts (UCS-2) with every field at its maxLength; sms.maxSegments allows 2',
    );
  });

  it('counts the static text with the fields, and a non-GSM character in it makes the whole text UCS-2', () => {
    // 'Hi ' and 75 extension characters fill a 153-septet part exactly; 76 more need two parts.
    const template = (maxLength: number, text: string, maxSegments: number) => ({
      fields: { v: { maxLength, charset: 'gsm7' } },
      sms: { text, maxSegments },
    });
    expect(figuresOf(template(151, 'Hi {{v}}', 2))?.sms).toEqual({ encoding: 'GSM-7', segments: 2, maxSegments: 2 });
    expect(problemsOf(template(152, 'Hi {{v}}', 2))[0]?.message).toBe(
      'can take 3 SMS parts (GSM-7) with every field at its maxLength; sms.maxSegments allows 2',
    );
    // In UCS-2 every character is one unit, extension characters included: 5 + 65 = 70 fit in one part.
    expect(figuresOf(template(65, 'Hi ✓ {{v}}', 1))?.sms).toEqual({ encoding: 'UCS-2', segments: 1, maxSegments: 1 });
    expect(problemsOf(template(66, 'Hi ✓ {{v}}', 1))[0]?.message).toBe(
      'can take 2 SMS parts (UCS-2) with every field at its maxLength; sms.maxSegments allows 1',
    );
  });

  it('allows three parts unless the template says otherwise', () => {
    // Three UCS-2 parts hold 201 single units but only 99 surrogate pairs (66 units a part).
    expect(figuresOf({ fields: { v: { maxLength: 199 } }, sms: { text: '{{v}}' } })?.sms).toEqual({ encoding: 'UCS-2', segments: 3, maxSegments: 3 });
    expect(problemsOf({ fields: { v: { maxLength: 200 } }, sms: { text: '{{v}}' } })[0]?.message).toBe(
      'can take 4 SMS parts (UCS-2) with every field at its maxLength; sms.maxSegments allows 3',
    );
  });
});

describe('e-mail subject: at most 150 characters with every field at its maxLength', () => {
  it('counts the static text and the fields', () => {
    const subject = (maxLength: number) => ({ fields: { v: { maxLength } }, email: { subject: 'Hi {{v}}', text: 'T' } });
    expect(figuresOf(subject(147))?.email).toEqual({ subjectChars: 150 });
    expect(problemsOf(subject(148))).toEqual([
      { file: 't.json', path: 'email.subject', message: 'can be 151 characters with every field at its maxLength; the limit is 150' },
    ]);
  });

  it('does not count the body', () => {
    expect(problemsOf({ fields: { v: { maxLength: 4096 } }, email: { subject: 'S', text: '{{v}}', html: '<p>{{v}}</p>' } })).toEqual([]);
  });
});

describe('push: the largest platform payload, every character of a unicode field JSON-escaped to 6 bytes', () => {
  const key = 'f'.repeat(64);
  const push = (maxLength: number, charset: 'gsm7' | 'unicode' = 'unicode') => ({ fields: { v: { maxLength, charset } }, push: { title: 'T', body: '{{v}}' } });

  it('measures exactly the payload the SNS provider sends, FCM tag included, at the longer priority', () => {
    // The FCM payload is the larger: 411 bytes of JSON around the body, the key three times (data, Android
    // tag, APNs collapse id for an iOS app FCM serves) and priority "normal" / "5" (one byte more than "high" / "10").
    const body = '\u0001'.repeat(100);
    expect(largestPlatformPayloadBytes(pushPayloads({ title: 'T', body, key, priority: 'normal' }))).toBe(411 + 600);
    expect(largestPlatformPayloadBytes(pushPayloads({ title: 'T', body, key, priority: 'high' }))).toBe(410 + 600);
    expect(figuresOf(push(100))?.push).toEqual({ payloadBytes: 411 + 600 });
    expect(figuresOf(push(100, 'gsm7'))?.push).toEqual({ payloadBytes: 411 + 300 });
  });

  it('fails over 4096 bytes', () => {
    expect(figuresOf(push(614))?.push).toEqual({ payloadBytes: 4095 });
    expect(problemsOf(push(615))).toEqual([
      { file: 't.json', path: 'push', message: 'the platform payload can be 4101 bytes with every field at its maxLength; APNs and FCM take at most 4096' },
    ]);
  });

  it('a push payload of exactly 4096 bytes is accepted; 4097 is refused', () => {
    // Each character of the title is one byte in every platform payload: 'TT' brings push(614)'s 4095 bytes to 4096.
    const titled = (title: string) => ({ fields: { v: { maxLength: 614 } }, push: { title, body: '{{v}}' } });
    expect(problemsOf(titled('TT'))).toEqual([]);
    expect(figuresOf(titled('TT'))?.push).toEqual({ payloadBytes: 4096 });
    expect(problemsOf(titled('TTT'))).toEqual([
      { file: 't.json', path: 'push', message: 'the platform payload can be 4097 bytes with every field at its maxLength; APNs and FCM take at most 4096' },
    ]);
  });
});

describe('figures of a template whose placeholders were not checked first', () => {
  it('throws naming the template and why its worst case did not render', () => {
    const unchecked = { id: 'unchecked', fields: {}, sms: { text: 'Code {{code}}', maxSegments: 3 } };
    expect(() => templateFigures(unchecked)).toThrow(
      new Error('the worst case of template "unchecked" did not render: MissingTemplateField: template "unchecked" needs code'),
    );
  });
});
