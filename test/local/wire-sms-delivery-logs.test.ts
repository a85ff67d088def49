import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { ledgerClientConfig } from '../../functions/adapters/ledger-client-config';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { WireFaultPlan, wireFaults } from '../../local/aws/wire-fault-plan';
import { wireSmsDeliveryLogs } from '../../local/wire-sms-delivery-logs';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { startWireRig } from '../wire/wire-harness';

/**
 * SNS's SMS delivery logs in a wire run (`simulate --wire` with SNS texts): the local SNS logs each accepted text, the
 * plan draws its fate, and the subscription hands the line to the real status function, which finds the row by SNS's
 * message id. Without them, every otp fallback after an SNS text was the "no evidence within the window" exception.
 */
const db = useTestLedger();

/** A text through the real sender and SNS client, its log path drawn with `faults`; answers the row and the path's counts. */
async function textWithLogs(eventId: string, faults: { readonly late: number; readonly lost: number }) {
  const plan = new WireFaultPlan(1, wireFaults(0), { clientTimeoutMs: 1_000 });
  const client = new DynamoDBClient({ ...ledgerClientConfig(), region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, endpoint: db.endpoint });
  const metrics = new InMemoryMetrics();
  const logs = wireSmsDeliveryLogs(plan, faults, { tableName: db.tableName, metrics, log: silentLog, client });
  const rig = await startWireRig(db, { sns: logs.snsOptions });
  try {
    const event = loginCodeEvent({ eventId });
    expect(failedIds(await rig.sender(new ControlledClock()).invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    await logs.stop();
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    return { row: await db.ledger.get(key), counts: logs.counts, plan, metrics };
  } finally {
    client.destroy();
    await rig.stop();
  }
}

describe('SNS texts\' delivery logs in a wire run', () => {
  it('every text the local SNS accepted leaves its delivery log on its row (SUCCESS), through the subscription to the status function', async () => {
    const { row, counts, metrics } = await textWithLogs('evt-sns-log-1', { late: 0, lost: 0 });
    expect(row).toMatchObject({ state: 'SENT', deliveryStatus: 'SUCCESS', deliveryStatusSource: 'sns-sms', sendProvenBy: 'SUCCESS' });
    expect(counts).toEqual({ logged: 1, handedOver: 1, failedBatches: 0, refusedTooLarge: 0 });
    expect(metrics.get('DeliveryStatusRecorded')).toBe(1);
  });

  it('a text whose log the plan loses leaves no status, and is counted as lost', async () => {
    const { row, counts, plan } = await textWithLogs('evt-sns-log-2', { late: 0, lost: 1 });
    expect(row).toMatchObject({ state: 'SENT' });
    expect(row?.deliveryStatus).toBeUndefined();
    expect(counts).toEqual({ logged: 1, handedOver: 0, failedBatches: 0, refusedTooLarge: 0 });
    expect(plan.events).toEqual({ late: 0, lost: 1 });
  });
});
