import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressFor } from '../../functions/core/event/recipient-address';
import { E164_LOG_MASK_PATTERN, maskingPolicy } from '../../lib/notifier-function';
import { App, Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Template } from 'aws-cdk-lib/assertions';
import { testOutdir } from '../support/cdk-outdir';

/** What the CloudWatch Logs data-protection policy masks as a custom identifier (it matches anywhere in a line). */
const mask = new RegExp(E164_LOG_MASK_PATTERN, 'g');

/** Phone numbers as the event validator accepts them: `+`, a first digit 1-9, 6 to 14 more digits. */
const acceptedPhone = fc
  .tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 6, maxLength: 14 }))
  .map(([first, rest]) => `+${first}${rest.join('')}`);

describe('log mask', () => {
  it('masks every phone number the validator accepts (7 to 15 digits), whole, inside a JSON log line', () => {
    fc.assert(
      fc.property(acceptedPhone, (phone) => {
        expect(addressFor({ recipientId: 'r', phone, channels: ['sms'] }, 'sms')).toEqual({ ok: true, address: phone });
        const line = JSON.stringify({ level: 'INFO', message: 'Sending', recipient: phone });
        expect(line.replace(mask, '***')).not.toMatch(/\+\d/);
        expect(line.match(mask)).toEqual([phone]);
      }),
      { numRuns: 500 },
    );
  });

  it('masks the shortest number the validator accepts', () => {
    const shortest = '+1234567';
    expect(addressFor({ recipientId: 'r', phone: shortest, channels: ['sms'] }, 'sms').ok).toBe(true);
    expect(shortest.match(mask)).toEqual([shortest]);
  });

  it('is the pattern every function log group carries, next to the managed e-mail identifier', () => {
    const stack = new Stack(new App({ outdir: testOutdir() }), 'Masked');
    new logs.LogGroup(stack, 'G', { dataProtectionPolicy: maskingPolicy() });
    const policy = Object.values(Template.fromStack(stack).findResources('AWS::Logs::LogGroup'))[0]?.['Properties']?.[
      'DataProtectionPolicy'
    ] as { Configuration: { CustomDataIdentifier: unknown[] }; Statement: { DataIdentifier: unknown[] }[] };
    expect(policy.Configuration.CustomDataIdentifier).toEqual([{ Name: 'E164PhoneNumber', Regex: E164_LOG_MASK_PATTERN }]);
    expect(JSON.stringify(policy.Statement[0]?.DataIdentifier)).toContain('data-identifier/EmailAddress');
  });
});
