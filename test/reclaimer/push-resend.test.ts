import { describe, expect, it } from 'vitest';
import { SnsProvider } from '../../functions/adapters/sns-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { unpackRequest } from '../../functions/core/ledger/stored-request';
import { shownPushes } from '../../local/aws/push-device-view';
import { loginCodeEvent } from '../support/events';
import { crashAfterFirst, invokeOrKill } from '../support/faults';
import { useTestLedger } from '../support/ledger-server';
import { useLocalSns } from '../support/local-sns-client';
import { CLAIM_TIMEOUT_MS, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { ReclaimerHarness } from './reclaimer-harness';

const db = useTestLedger();
const local = useLocalSns();

const ENDPOINT = 'arn:aws:sns:eu-west-1:123456789012:endpoint/APNS/shop-app/5a6b7c8d-1111-2222-3333-000000000009';

describe('a push resent from the ledger row alone', () => {
  it("keeps its collapse id and its code's lifetime: the row keeps what the event's data said", async () => {
    const eventId = 'evt-reclaim-push-otp';
    const event = loginCodeEvent({
      eventId,
      data: { code: '482913', expiresInMinutes: 3 },
      recipients: [{ recipientId: 'user-9', pushEndpointArn: ENDPOINT, channels: ['push'] }],
    });
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'push', templateId: 'login-code' });
    const provider = new SnsProvider(local.client);
    // The sender's push reaches SNS, then its invocation dies before it records the outcome.
    const dying = crashAfterFirst(provider, 'send', 'hang');
    const sender = new SenderHarness({ ledger: db.ledger, providers: { email: dying, sms: dying, push: dying } });
    expect(await invokeOrKill(sender.invoke(sqsRecord(JSON.stringify(event))))).toBe('killed');
    const kept = (await db.ledger.get(key))?.request;
    expect(kept && unpackRequest(kept)).toMatchObject({ ok: true, message: { channel: 'push', validForSeconds: 180 } });

    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile, wrapProvider: () => provider });
    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await reclaimer.run()).toMatchObject({ found: 1, resent: 1 });
    expect(reclaimer.metrics.get(METRIC.ReclaimedResent)).toBe(1);

    const published = local.sns.accepted().filter((p) => p.key === key);
    // The code's 3 minutes count from the event (30 s before the sender's clock), not from each send (review defect 6):
    // 150 s left at the first send, 29 s at the resend 121 s later.
    expect(published.map((p) => [p.attributes['AWS.SNS.MOBILE.APNS.COLLAPSE_ID'], p.attributes['AWS.SNS.MOBILE.APNS.TTL']])).toEqual([
      [key, '150'],
      [key, '29'],
    ]);
    expect(shownPushes(published)).toMatchObject([{ collapseId: key, deliveries: 2, keys: [key] }]);
  });
});
