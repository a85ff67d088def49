import { describe, expect, it } from 'vitest';
import { ConfigurationError, InvalidEventError, RetryLaterError } from '../../functions/core/errors';

/** The name is what Lambda reports as `errorType` for a failed cold start, and what the logs show. */
describe('errors say what they are', () => {
  it('a configuration error is named ConfigurationError', () => {
    expect(new ConfigurationError('CLAIM_TIMEOUT_SECONDS must exceed the function timeout')).toMatchObject({
      name: 'ConfigurationError',
      message: 'CLAIM_TIMEOUT_SECONDS must exceed the function timeout',
    });
  });

  it('a configuration error at cold start reports its message and the variable to change, without a stack trace (Lambda logs the stack it carries)', () => {
    const error = new ConfigurationError('Invalid sender configuration: CLAIM_TIMEOUT_SECONDS: Required');
    expect(error.stack).toBe('ConfigurationError: Invalid sender configuration: CLAIM_TIMEOUT_SECONDS: Required');
    expect(error).toBeInstanceOf(Error);
  });

  it('an invalid event is named InvalidEventError and its message leads with the reason', () => {
    const error = new InvalidEventError('NotJson', 'the body is not JSON');
    expect(error).toMatchObject({ name: 'InvalidEventError', reason: 'NotJson', detail: 'the body is not JSON', message: 'NotJson: the body is not JSON' });
  });

  it('a retry-later error is named RetryLaterError and keeps its backoff', () => {
    expect(new RetryLaterError('1 of 2 messages not settled', 'pause')).toMatchObject({ name: 'RetryLaterError', backoff: 'pause' });
    expect(new RetryLaterError('1 of 2 messages not settled').backoff).toBeUndefined();
  });
});
