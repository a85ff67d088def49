/**
 * Child process of the provider-pace bench: local SQS (fauxqs), SES v2 and SNS on loopback, with
 * the quotas the parent passes, so that the sender under test has an event loop to itself (as in
 * Lambda, where AWS runs elsewhere). Reports its endpoints, answers 'collect' with every accepted
 * send's idempotency key, channel and time, and exits on 'stop' or when the parent goes away.
 */
import { startLocalSes } from '../../local/aws/local-ses';
import { startLocalSns } from '../../local/aws/local-sns-server';
import { startLocalSqs } from '../../local/aws/local-sqs';
import type { ProviderServicesRequest, ProviderServicesSettings, ProviderServicesMessage } from './provider-services';

const settings = JSON.parse(process.env.PACE_SERVICES ?? '{}') as ProviderServicesSettings;
const send = (message: ProviderServicesMessage) => process.send?.(message);

const [sqs, ses, sns] = await Promise.all([
  startLocalSqs({ visibilityTimeoutSeconds: settings.visibilityTimeoutSeconds, maxReceiveCount: settings.maxReceiveCount }),
  startLocalSes({ limits: { maxPerSecond: settings.emailPerSecond } }),
  startLocalSns({ limits: { maxPerSecond: settings.smsPerSecond } }),
]);
const extraQueues = Object.fromEntries(
  await Promise.all((settings.extraQueues ?? []).map(async (name) => [name, await sqs.createQueuePair(name)] as const)),
);
const stop = async () => {
  await Promise.allSettled([sqs.stop(), ses.stop(), sns.stop()]);
  process.exit(0);
};
process.on('message', (raw: ProviderServicesRequest) => {
  if (raw.type === 'collect') {
    const sends = [...ses.accepted(), ...sns.accepted()].map((a) => ({ key: a.key ?? '', channel: a.channel, acceptedAt: a.acceptedAt }));
    send({ type: 'accepted', sends });
  } else if (raw.type === 'stop') void stop();
});
process.on('disconnect', () => void stop());
send({
  type: 'ready',
  endpoints: { sqs: sqs.endpoint, ses: ses.endpoint, sns: sns.endpoint },
  queue: { queueUrl: sqs.queueUrl, queueArn: sqs.queueArn, dlqUrl: sqs.dlqUrl },
  extraQueues,
});
