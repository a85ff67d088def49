import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PinpointSMSVoiceV2Client, SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsErrorResponse } from '../../local/aws/aws-error-shapes';
import {
  EUM_SEND_TEXT_THROTTLED,
  SES_DAILY_QUOTA_EXCEEDED,
  SES_MAX_SENDING_RATE_EXCEEDED,
  SNS_PUBLISH_THROTTLED,
  type DocumentedThrottle,
} from '../../local/aws/documented-throttling';
import { startLocalEum } from '../../local/aws/local-eum';
import { startLocalSes } from '../../local/aws/local-ses';
import { startLocalSns } from '../../local/aws/local-sns-server';
import { PROVIDER_WIRE_ERRORS, type ProviderWireError } from '../../local/aws/provider-error-catalog';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../../local/local-dynamo';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-http';

type SendService = ProviderWireError['service'];

/** The send call of each provider, and the SDK package whose model describes it. */
const CALLS: Record<SendService, { readonly sdkPackage: string; readonly command: string }> = {
  sesv2: { sdkPackage: '@aws-sdk/client-sesv2', command: 'SendEmailCommand' },
  sns: { sdkPackage: '@aws-sdk/client-sns', command: 'PublishCommand' },
  'sms-voice': { sdkPackage: '@aws-sdk/client-pinpoint-sms-voice-v2', command: 'SendTextMessageCommand' },
};

/**
 * The errors every AWS query and JSON API may answer besides its own ("Common Errors" of the SES v2 and SNS API
 * references: https://docs.aws.amazon.com/ses/latest/APIReference-V2/CommonErrors.html,
 * https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html). `Throttling` is the query protocol's older name of
 * ThrottlingException, which SNS also answers.
 */
const AWS_COMMON_ERRORS = new Set(['AccessDeniedException', 'InternalFailure', 'ServiceUnavailable', 'ThrottlingException', 'Throttling', 'ValidationError']);

/** The errors the installed SDK's model lists for the call (its command's `@throws`), the base class left out. */
function modeledErrors(service: SendService): Set<string> {
  const { sdkPackage, command } = CALLS[service];
  const entry = createRequire(import.meta.url).resolve(sdkPackage);
  const root = entry.slice(0, entry.lastIndexOf(`${join('dist-cjs')}`));
  const text = readFileSync(join(root, 'dist-types', 'commands', `${command}.d.ts`), 'utf8');
  const names = [...text.matchAll(/@throws \{@link (\w+)\}/g)].map((m) => m[1] ?? '');
  return new Set(names.filter((name) => !name.endsWith('ServiceException')));
}

interface SdkError {
  readonly name: string;
  readonly status: number | undefined;
  readonly message: string;
}

async function errorOf(call: Promise<unknown>): Promise<SdkError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e as { name: string; message: string; $metadata?: { httpStatusCode?: number } },
  );
  if (!error) throw new Error('expected the call to fail');
  return { name: error.name, status: error.$metadata?.httpStatusCode, message: error.message };
}

const clientConfig = (endpoint: string) => ({ endpoint, region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS, maxAttempts: 1 });

/** One send call of the service through its real SDK client, to `endpoint`. */
function send(service: SendService, endpoint: string): Promise<unknown> {
  switch (service) {
    case 'sesv2':
      return new SESv2Client(clientConfig(endpoint)).send(
        new SendEmailCommand({
          FromEmailAddress: 'shop@mail.acme.test',
          Destination: { ToAddresses: ['buyer@mail.acme.test'] },
          Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } },
        }),
      );
    case 'sns':
      return new SNSClient(clientConfig(endpoint)).send(new PublishCommand({ PhoneNumber: '+15550100', Message: 'hi' }));
    case 'sms-voice':
      return new PinpointSMSVoiceV2Client(clientConfig(endpoint)).send(new SendTextMessageCommand({ DestinationPhoneNumber: '+15550100', MessageBody: 'hi' }));
  }
}

describe("the provider error catalogue, checked against the SDK's error names for each send call", () => {
  let server: LoopbackServer;
  let answer: ProviderWireError | undefined;
  beforeAll(async () => {
    server = await startLoopbackServer((_req, res) => {
      if (!answer) return void res.writeHead(500).end();
      const wire = awsErrorResponse(answer.service, answer.status, answer.code, answer.message, answer.modeled);
      res.writeHead(wire.status, wire.headers).end(wire.body);
    });
  });
  afterAll(async () => server?.close());

  it.each(PROVIDER_WIRE_ERRORS.map((e) => ({ ...e, label: `${e.service} ${e.status} ${e.code}: ${e.message.slice(0, 30)}` })))(
    '$label is an error the SDK models for the call, or an AWS common error',
    async (error: ProviderWireError) => {
      answer = error;
      const parsed = await errorOf(send(error.service, server.endpoint));
      expect(parsed.status).toBe(error.status);
      const known = new Set([...modeledErrors(error.service), ...AWS_COMMON_ERRORS]);
      expect(known.has(parsed.name), `${parsed.name} is neither modeled for ${CALLS[error.service].command} nor a common error`).toBe(true);
    },
  );
});

describe("the local stand-ins throttle with their send call's documented error", () => {
  /** Each stand-in, allowed one send a second (or a day), and the answer its documentation gives the next. */
  const cases: { readonly name: string; readonly documented: DocumentedThrottle; readonly start: () => Promise<{ endpoint: string; stop(): Promise<void> }> }[] = [
    { name: 'local SES over the sending rate', documented: SES_MAX_SENDING_RATE_EXCEEDED, start: () => startLocalSes({ limits: { maxPerSecond: 1 } }) },
    { name: 'local SES over the daily quota', documented: SES_DAILY_QUOTA_EXCEEDED, start: () => startLocalSes({ limits: { dailyQuota: 1 } }) },
    { name: 'local SNS over the publish rate', documented: SNS_PUBLISH_THROTTLED, start: () => startLocalSns({ limits: { maxPerSecond: 1 } }) },
    { name: 'local End User Messaging over the text rate', documented: EUM_SEND_TEXT_THROTTLED, start: () => startLocalEum({ limits: { maxPerSecond: 1 } }) },
  ];

  it.each(cases)('$name answers the documented error, in the catalogue and named by the SDK as documented', async ({ documented, start }) => {
    const standIn = await start();
    try {
      await send(documented.service as SendService, standIn.endpoint);
      const parsed = await errorOf(send(documented.service as SendService, standIn.endpoint));
      expect(parsed).toEqual({ name: documented.code, status: documented.status, message: documented.message });
      expect(PROVIDER_WIRE_ERRORS).toContainEqual(expect.objectContaining({ service: documented.service, code: documented.code, status: documented.status, message: documented.message }));
      const known = new Set([...modeledErrors(documented.service as SendService), ...AWS_COMMON_ERRORS]);
      expect(known.has(parsed.name)).toBe(true);
    } finally {
      await standIn.stop();
    }
  });
});
