import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC, type MetricName } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { awsErrorResponse } from '../../local/aws/aws-error-shapes';
import { PROVIDER_WIRE_ERRORS, type ExpectedHandling, type ProviderWireError } from '../../local/aws/provider-error-catalog';
import type { WireFault } from '../../local/aws/wire-fault-proxy';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent, orderShippedEvent, weeklyOffersEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { SNSClient } from '@aws-sdk/client-sns';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import { startLoopbackServer } from '../support/loopback-http';
import { SenderHarness } from '../support/sender-harness';
import { faultFirst, startWireRig, WIRE_SEND_TIMEOUT_MS, type WireRig } from './wire-harness';

const db = useTestLedger();
let rig: WireRig;
beforeAll(async () => {
  rig = await startWireRig(db);
});
afterAll(async () => rig?.stop());

const isSend = (r: { operation: string }) => r.operation === 'Publish' || r.operation === 'SendEmail' || r.operation === 'SendTextMessage';

/** One message on the given provider's channel: SES -> the seller's e-mail, SNS or End User Messaging -> an SMS. */
function oneMessage(service: 'sesv2' | 'sns' | 'sms-voice', eventId: string, messageClass: string): { event: NotificationEvent; key: string } {
  if (service === 'sesv2') {
    // A bulk class's e-mail is rendered from a bulk template.
    const event =
      messageClass === 'marketing' ? weeklyOffersEvent({ eventId }) : orderShippedEvent({ eventId, messageClass, recipients: [orderShippedEvent().recipients[1]!] });
    return { event, key: idempotencyKey({ eventId, recipientId: 'seller-4', channel: 'email', templateId: event.templateId }) };
  }
  return { event: loginCodeEvent({ eventId, messageClass }), key: idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' }) };
}

function proxyOf(service: 'sesv2' | 'sns' | 'sms-voice') {
  return { sesv2: rig.sesProxy, sns: rig.snsProxy, 'sms-voice': rig.eumProxy }[service];
}

const CAUSE_METRIC: Partial<Record<ExpectedHandling, MetricName>> = {
  throttled: METRIC.ProviderThrottled,
  'quota-exhausted': METRIC.ProviderQuotaExhausted,
  configuration: METRIC.ProviderConfigurationFault,
};

describe('every documented SendEmail / Publish / SendTextMessage error, in its wire shape, through the real SDK', () => {
  it.each(PROVIDER_WIRE_ERRORS.map((e) => ({ ...e, label: `${e.service} ${e.status} ${e.code}${e.modeled?.reason ? ` ${e.modeled.reason}` : ''}: ${e.message.slice(0, 40)}` })))(
    '$label -> $expected',
    async (error: ProviderWireError) => {
      const eventId = `evt-wire-err-${error.service}-${error.code}-${error.modeled?.reason ?? ''}-${error.expected}`;
      const { event, key } = oneMessage(error.service, eventId, 'marketing');
      const body = JSON.stringify(event);
      const sender = rig.sender(undefined, undefined, undefined, { smsProvider: error.service === 'sms-voice' ? 'end-user-messaging' : 'sns' });
      proxyOf(error.service).setDecider(
        faultFirst(isSend, { kind: 'error-before', response: awsErrorResponse(error.service, error.status, error.code, error.message, error.modeled) }),
      );
      const first = sqsRecord(body);
      const failed = failedIds(await sender.invoke(first));
      const row = await db.ledger.get(key);

      switch (error.expected) {
        case 'permanent':
          expect(failed).toEqual([]);
          expect(row).toMatchObject({ state: 'FAILED' });
          expect(sender.metrics.get(METRIC.PermanentFailure)).toBe(1);
          return;
        case 'withdrawn-consent':
          // The test's class is marketing (bulk): the recipient withdrew consent, so SUPPRESSED, never retried.
          expect(failed).toEqual([]);
          expect(row).toMatchObject({ state: 'SUPPRESSED', suppressionReason: 'OptedOut' });
          expect(sender.metrics.get(METRIC.PermanentFailure)).toBe(0);
          return;
        case 'ambiguous':
          expect(sender.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
          expect(row?.state).not.toBe('FAILED');
          return;
        default: {
          // Certainly refused: retried with the same key, counted by cause, then sent once.
          expect(failed).toEqual([first.messageId]);
          expect(row).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
          const causeMetric = CAUSE_METRIC[error.expected];
          if (causeMetric) expect(sender.metrics.get(causeMetric), causeMetric).toBe(1);
          expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
          expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
          expect(rig.accepted(key)).toBe(1);
        }
      }
    },
  );
});

/** The fates after which nobody knows whether the provider sent: it did, in each of these. */
const AMBIGUOUS_FATES: Readonly<Record<string, WireFault>> = {
  'accepted, then a 500': { kind: 'error-after', response: awsErrorResponse('sns', 500, 'InternalError', 'Internal error') },
  'accepted, then no answer past the send timeout': { kind: 'hang' },
  'accepted, then the connection reset': { kind: 'lose-response' },
};

const EXPECTED_BY_CLASS = {
  otp: { accepted: 2, state: 'SENT', resent: 1 },
  transactional: { accepted: 2, state: 'SENT', resent: 1 }, // after its evidence wait, no evidence (SNS cannot be asked)
  marketing: { accepted: 1, state: 'UNKNOWN', resent: 0 },
} as const;

describe('ambiguous fates on the wire are handled per message class, and counted', () => {
  const cases = Object.keys(AMBIGUOUS_FATES).flatMap((fate) =>
    (['otp', 'transactional', 'marketing'] as const).map((messageClass) => ({ fate, messageClass })),
  );
  it.each(cases)('$fate, class $messageClass', async ({ fate, messageClass }) => {
    const eventId = `evt-wire-fate-${fate.replace(/\W+/g, '-')}-${messageClass}`;
    const { event, key } = oneMessage('sns', eventId, messageClass);
    const body = JSON.stringify(event);
    const clock = new ControlledClock();
    const sender = rig.sender(clock);
    rig.snsProxy.setDecider(faultFirst(isSend, AMBIGUOUS_FATES[fate]!));

    let settled = false;
    for (let delivery = 0; delivery < 4 && !settled; delivery += 1) {
      settled = failedIds(await sender.invoke(sqsRecord(body))).length === 0;
      if (messageClass === 'transactional' && delivery === 0) {
        // Inside the evidence wait: the next delivery waits and sends nothing.
        clock.advance(299_000);
        expect(failedIds(await sender.invoke(sqsRecord(body)))).toHaveLength(1);
        expect(rig.accepted(key)).toBe(1);
      }
      clock.advance(2_000);
    }
    const expected = EXPECTED_BY_CLASS[messageClass];
    expect(settled).toBe(true);
    expect(rig.accepted(key)).toBe(expected.accepted);
    expect(await db.ledger.get(key)).toMatchObject({ state: expected.state });
    expect(sender.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
    expect(sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(expected.resent);
  });

  it('each ambiguous attempt gets its own evidence wait: no resend sooner than the wait after the latest one', async () => {
    const eventId = 'evt-wire-second-ambiguity';
    const { event, key } = oneMessage('sns', eventId, 'transactional');
    const body = JSON.stringify(event);
    const clock = new ControlledClock();
    const sender = rig.sender(clock);
    rig.snsProxy.setDecider(faultFirst(isSend, { kind: 'hang' }, 2));

    await sender.invoke(sqsRecord(body)); // first ambiguous attempt (accepted, no answer)
    clock.advance(301_000);
    await sender.invoke(sqsRecord(body)); // wait over, no evidence: resent, ambiguous again
    expect(rig.accepted(key)).toBe(2);

    clock.advance(299_000); // 600 s after the first ambiguity, 299 s after the latest
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toHaveLength(1);
    expect(rig.accepted(key)).toBe(2);

    clock.advance(2_000);
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(rig.accepted(key)).toBe(3);
    expect(sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(2);
  });

  it('a reset connection may have carried the request: ambiguous, so a give-up class gives up and counts it', async () => {
    const { event, key } = oneMessage('sns', 'evt-wire-reset', 'marketing');
    const sender = rig.sender();
    rig.snsProxy.setDecider(faultFirst(isSend, { kind: 'reset-before' }));
    await sender.invoke(sqsRecord(JSON.stringify(event)));
    expect(sender.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
    expect(sender.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(1);
    expect((await db.ledger.get(key))?.state).toBe('UNKNOWN');
  });

  it('a provider that refuses the connection is retried later with the same key, never UNKNOWN', async () => {
    const closed = await startLoopbackServer(() => undefined);
    await closed.close(); // nothing listens on this port now
    const snsClient = new SNSClient({ ...sendClientConfig(WIRE_SEND_TIMEOUT_MS), region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' }, endpoint: closed.endpoint });
    const refused = new SnsProvider(snsClient);
    const { event, key } = oneMessage('sns', 'evt-wire-refused', 'marketing');
    const body = JSON.stringify(event);
    const harness = new SenderHarness({ ledger: rig.ledger, providers: { email: refused, sms: refused, push: refused } });
    const first = sqsRecord(body);
    expect(failedIds(await harness.invoke(first))).toEqual([first.messageId]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
    expect(harness.metrics.get(METRIC.AmbiguousOutcome)).toBe(0);
    snsClient.destroy();

    expect(failedIds(await rig.sender().invoke(sqsRecord(body)))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(rig.accepted(key)).toBe(1);
  });
});
