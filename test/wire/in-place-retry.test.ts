import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { laneDelivery } from '../../functions/delivery/lambda-delivery-context';
import { awsErrorResponse, internalErrorResponse } from '../../local/aws/aws-error-shapes';
import { SES_MAX_SENDING_RATE_EXCEEDED, SNS_PUBLISH_THROTTLED, type DocumentedThrottle } from '../../local/aws/documented-throttling';
import { providerKeyOf } from '../../local/aws/wire-fault-plan';
import type { WireFault } from '../../local/aws/wire-fault-proxy';
import type { WireRequest } from '../../local/aws/wire-operation';
import { laneSenderConfigs, resolveLocalStack } from '../../local/local-stack';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { faultFirst, startWireRig, type WireRig } from './wire-harness';

/**
 * The in-place retry of a throttled send, per lane as the stack configures it (each lane's sender configuration
 * loaded from the environment synth writes for it), through the real SES v2 and SNS clients and a fault proxy
 * below them: only a throttling answer proves nothing was sent, so only it is sent again under the same claim.
 */
const LANES = laneSenderConfigs(resolveLocalStack({ props: { emailFrom: 'notifications@mail.shop-notifier.dev' } }));
const db = useTestLedger();
let rig: WireRig;
beforeAll(async () => {
  rig = await startWireRig(db);
});
afterAll(async () => rig?.stop());

type Service = 'sesv2' | 'sns';
const isSend = (r: WireRequest) => r.operation === 'Publish' || r.operation === 'SendEmail';

/** One message through `service`: an e-mail (SES) to the seller, or a login code by SMS (SNS). */
function oneMessage(service: Service, eventId: string): { event: NotificationEvent; key: string } {
  if (service === 'sesv2') {
    const event = orderShippedEvent({ eventId, recipients: [orderShippedEvent().recipients[1]!] });
    return { event, key: idempotencyKey({ eventId, recipientId: 'seller-4', channel: 'email', templateId: 'order-shipped' }) };
  }
  return { event: loginCodeEvent({ eventId }), key: idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' }) };
}

/** One invocation of `lane`'s sender on one message whose send requests meet `fault` (`times` of them): what crossed the wire. */
async function sendOnce(lane: 'urgent' | 'bulk', service: Service, eventId: string, fault: WireFault, times = 1) {
  const config = LANES.get(lane)!;
  const { event, key } = oneMessage(service, eventId);
  const proxy = service === 'sesv2' ? rig.sesProxy : rig.snsProxy;
  const ofKey = (r: WireRequest) => isSend(r) && providerKeyOf(r) === key;
  proxy.setDecider(faultFirst(ofKey, fault, times));
  const sender = rig.sender(undefined, undefined, undefined, laneDelivery(config));
  const record = sqsRecord(JSON.stringify(event));
  const failed = failedIds(await sender.invoke(record));
  proxy.setDecider(() => undefined);
  return { failed, record, requests: proxy.requests.filter(ofKey).length, accepted: rig.accepted(key), row: await db.ledger.get(key), metrics: sender.metrics };
}

// The documented throttling of each send call (local/aws/documented-throttling.ts).
const THROTTLING: Record<Service, DocumentedThrottle> = { sesv2: SES_MAX_SENDING_RATE_EXCEEDED, sns: SNS_PUBLISH_THROTTLED };
const throttled = (service: Service): WireFault => {
  const e = THROTTLING[service];
  return { kind: 'error-before', response: awsErrorResponse(service, e.status, e.code, e.message) };
};

/** What the request left behind: the provider may have sent it, and the sender cannot know. */
const AFTER_THE_REQUEST_LEFT: readonly [string, (service: Service) => WireFault][] = [
  ['an ambiguous answer (accepted, then a 500)', (service) => ({ kind: 'error-after', response: internalErrorResponse(service) })],
  ['an answer lost after acceptance (no answer before the send timeout)', () => ({ kind: 'hang' })],
  ['a dead connection after the request left (reset before the answer)', () => ({ kind: 'lose-response' })],
];
const CASES = (['urgent', 'bulk'] as const).flatMap((lane) =>
  (['sesv2', 'sns'] as const).flatMap((service) => AFTER_THE_REQUEST_LEFT.map(([what, fault]) => ({ lane, service, what, fault }))),
);

describe('a lane sends again in place, claim held, only after a throttling answer (real SDK clients, faults on the wire)', () => {
  it('the lanes are the stack\'s: the urgent lane pauses 250 and 500 ms, the bulk lane not at all', () => {
    expect(laneDelivery(LANES.get('urgent')!).throttleRetryPausesMs).toEqual([250, 500]);
    expect(laneDelivery(LANES.get('bulk')!).throttleRetryPausesMs).toEqual([]);
  });

  it.each(CASES)('$lane lane, $service: $what is never sent again in place', async ({ lane, service, fault }) => {
    const run = await sendOnce(lane, service, `evt-in-place-${lane}-${service}-${fault(service).kind}`, fault(service));
    // One request, and the provider acted on it once: nothing sent again under the same claim.
    expect(run.requests).toBe(1);
    expect(run.accepted).toBe(1);
    expect(run.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
    expect(run.metrics.get(METRIC.ProviderThrottled)).toBe(0);
    expect(run.row?.state).not.toBe('SENT');
  });

  it.each(['sesv2', 'sns'] as const)('urgent lane, %s: a throttled send is sent again in place and sent in the same invocation', async (service) => {
    const run = await sendOnce('urgent', service, `evt-in-place-urgent-${service}-throttled-once`, throttled(service));
    expect(run.requests).toBe(2);
    expect(run.accepted).toBe(1);
    expect(run.failed).toEqual([]);
    expect(run.row).toMatchObject({ state: 'SENT', attempts: 1 });
  });

  it.each([
    ['urgent', 'sesv2', 3],
    ['urgent', 'sns', 3],
    ['bulk', 'sesv2', 1],
    ['bulk', 'sns', 1],
  ] as const)("%s lane, %s: always throttled, it sends once and again after each of its lane's pauses (%i requests), then hands the claim back unsent", async (lane, service, requests) => {
    const run = await sendOnce(lane, service, `evt-in-place-${lane}-${service}-always-throttled`, throttled(service), 10);
    expect(run.requests).toBe(requests);
    expect(run.accepted).toBe(0);
    expect(run.failed).toEqual([run.record.messageId]);
    expect(run.row).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
    expect(run.metrics.get(METRIC.ProviderThrottled)).toBe(requests);
  });
});
