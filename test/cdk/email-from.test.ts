import { Duration } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { emailFromViolations, reservedDomainOf } from '../../lib/email-from';
import { build, cdkJsonContext, errorOf } from './helpers';

describe('emailFrom', () => {
  it.each([
    ['notifications@example.com', 'example.com'],
    ['Shop <no-reply@mail.example.net>', 'example.net'],
    ['a@EXAMPLE.ORG', 'example.org'],
    ['a@shop.test', '.test'],
    ['a@nowhere.invalid', '.invalid'],
    ['a@localhost', '.localhost'],
    ['a@host.localhost', '.localhost'],
    ['a@shop.example', '.example'],
  ])('fails if it uses a reserved domain (%s)', (emailFrom, reserved) => {
    expect(errorOf({ emailFrom })).toContain(`emailFrom (${emailFrom}) uses the reserved domain ${reserved}`);
  });

  it('fails if it is missing, saying what to set', () => {
    expect(errorOf({ emailFrom: '' })).toMatch(/emailFrom is required: the From address of every e-mail/);
  });

  it('fails if it is not an e-mail address, naming the value', () => {
    expect(errorOf({ emailFrom: 'not-an-address' })).toMatch(/emailFrom \(not-an-address\) is not an e-mail address/);
  });

  it('is reported together with every other unsafe setting', () => {
    const message = errorOf({ emailFrom: 'a@example.com', maxReceiveCount: 1, sendTimeout: Duration.seconds(40) });
    expect(message).toMatch(/reserved domain example\.com[\s\S]*send timeout \(40000ms\)[\s\S]*maxReceiveCount \(1\)/);
  });

  it.each(['notifications@mail.acme-notifier.dev', 'Shop <a@examples.com>', 'a@example.com.au', 'a@my-example.org', 'a@testing.io'])(
    'accepts %s',
    (emailFrom) => {
      expect(emailFromViolations(emailFrom)).toEqual([]);
    },
  );

  it('matches reserved names whole, never as a substring', () => {
    expect(reservedDomainOf('notexample.com')).toBeUndefined();
    expect(reservedDomainOf('example.com.')).toBe('example.com');
  });

  it('has no default in cdk.json, so a deploy without it fails at synth', () => {
    expect(cdkJsonContext()['notifier:emailFrom']).toBeUndefined();
  });
});
