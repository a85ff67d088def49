import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../../functions/core/errors';
import { BUILT_IN_MESSAGE_CLASSES, buildMessageClassRegistry } from '../../../functions/core/policy/message-class';

const entry = (fields: Record<string, unknown>) => JSON.stringify([{ name: 'receipts', onAmbiguous: 'lookup', ...fields }]);

describe("a deployment's own message classes, validated at cold start", () => {
  it.each([
    ['a', true],
    [`a${'b'.repeat(63)}`, true], // 64 characters, the most
    ['order-updates-2', true],
    [`a${'b'.repeat(64)}`, false],
    ['1receipts', false],
    ['Receipts', false],
    ['re_ceipts', false],
    [' receipts', false],
    ['receipts ', false],
  ])('class name %j accepted: %s', (name, valid) => {
    const build = () => buildMessageClassRegistry(entry({ name }));
    if (valid) expect(build().get(name)).toMatchObject({ name, onAmbiguous: 'lookup' });
    else expect(build).toThrow(ConfigurationError);
  });

  it.each([
    [0, true],
    [86_400, true],
    [86_401, false],
    [-1, false],
  ])('evidenceWaitSeconds %d accepted: %s', (evidenceWaitSeconds, valid) => {
    const build = () => buildMessageClassRegistry(entry({ evidenceWaitSeconds }));
    if (valid) expect(build().get('receipts')?.evidenceWaitSeconds).toBe(evidenceWaitSeconds);
    else expect(build).toThrow(/MESSAGE_CLASSES is invalid at 0\.evidenceWaitSeconds/);
  });

  it('blank configuration means the built-in classes, by name', () => {
    for (const blank of [undefined, '', '   ']) {
      expect([...buildMessageClassRegistry(blank).keys()]).toEqual(['otp', 'transactional', 'marketing']);
    }
    expect(BUILT_IN_MESSAGE_CLASSES.map((c) => c.name)).toEqual(['otp', 'transactional', 'marketing']);
  });
});
