import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { SNSClient } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { METRIC } from '../../functions/core/observability/metric-names';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { AMBIGUITY_METRICS, oneMessage, sendRequests } from './one-message';
import { useWireRig } from './wire-harness';

// Through the real sender, the real SES v2 and SNS clients (over HTTP to the local services, through proxies
// that see every request) and the real ledger on dynalite, with a middleware injected into each client.

const db = useTestLedger();
const rig = useWireRig(db);

type Clients = { readonly ses: SESv2Client; readonly sns: SNSClient };
/** The client stacks as plain middleware stacks: the tests add middlewares that only throw. */
interface TestStack {
  add(middleware: () => () => Promise<never>, options: { step: 'build'; name: string }): void;
  addRelativeTo(middleware: () => () => Promise<never>, options: { relation: 'after'; toMiddleware: string; name: string }): void;
}
const stacks = ({ ses, sns }: Clients) => [ses.middlewareStack, sns.middlewareStack] as unknown as TestStack[];

/** A middleware that throws before the send step (in the build step, as a signer or plugin would). */
const environmentFails = (clients: Clients) => {
  for (const stack of stacks(clients)) {
    stack.add(
      () => async () => {
        throw Object.assign(new Error('refused before the send'), { name: 'InjectedPreflightError' });
      },
      { step: 'build', name: 'injectedPreflightFailure' },
    );
  }
};
/** A middleware in the serializer's place, where the request is built from the message: the message's own failure. */
const contentFails = (clients: Clients) => {
  for (const stack of stacks(clients)) {
    stack.addRelativeTo(
      () => async () => {
        throw new TypeError('cannot serialize this message');
      },
      { relation: 'after', toMiddleware: 'endpointV2Middleware', name: 'injectedSerializerFailure' },
    );
  }
};

describe('a failure injected into each provider client before the send step is never counted as an unknown outcome', () => {
  it.each(['email', 'sms', 'push'] as const)("%s: the environment's (a middleware in the build step): retried as a configuration fault, then sent once", async (channel) => {
    const { event, key } = oneMessage(channel, `evt-preflight-environment-${channel}`, '1001');
    const body = JSON.stringify(event);
    const broken = rig.sender(undefined, undefined, undefined, { prepareClients: environmentFails });
    const before = sendRequests(rig);

    const first = sqsRecord(body);
    expect(failedIds(await broken.invoke(first))).toEqual([first.messageId]);
    expect(await db.ledger.get(key)).toMatchObject({
      state: 'PENDING',
      lastRelease: 'transient',
      failureReason: 'NotSent: InjectedPreflightError: refused before the send',
    });
    expect(sendRequests(rig) - before).toBe(0);
    expect(broken.metrics.get(METRIC.ProviderConfigurationFault)).toBe(1);
    for (const metric of AMBIGUITY_METRICS) expect(broken.metrics.get(metric), metric).toBe(0);

    // Fixed (a new environment): the redelivery takes the released claim and sends it, once, with no ambiguity behind it.
    const fixed = rig.sender();
    expect(failedIds(await fixed.invoke(sqsRecord(body)))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT', attempts: 2 });
    expect(rig.accepted(key)).toBe(1);
    expect(fixed.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
  });

  it.each(['email', 'sms', 'push'] as const)("%s: the message's own (in the serializer's place): FAILED with its reason, once", async (channel) => {
    const { event, key } = oneMessage(channel, `evt-preflight-content-${channel}`, '1001');
    const body = JSON.stringify(event);
    const sender = rig.sender(undefined, undefined, undefined, { prepareClients: contentFails });
    const before = sendRequests(rig);

    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'FAILED', failureReason: 'NotSent: TypeError: cannot serialize this message' });
    expect(sender.metrics.get(METRIC.PermanentFailure)).toBe(1);
    for (const metric of AMBIGUITY_METRICS) expect(sender.metrics.get(metric), metric).toBe(0);

    // Once: a redelivery finds it settled and calls nothing.
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(sender.metrics.get(METRIC.DuplicateSuppressed)).toBe(1);
    expect(sendRequests(rig) - before).toBe(0);
  });
});
