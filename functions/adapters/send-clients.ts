import type { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import type { SNSClient } from '@aws-sdk/client-sns';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/**
 * Settings shared by the clients that send messages. SDK retries are off: the default
 * strategy re-sends on timeouts and 5xx, which for SES/SNS is a possible duplicate.
 * The ledger decides retries, with the same key.
 */
export function sendClientConfig(sendTimeoutMs: number) {
  return {
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: Math.min(3_000, sendTimeoutMs),
      requestTimeout: sendTimeoutMs,
      // Without this, an exceeded requestTimeout only logs a warning and the call hangs on.
      throwOnRequestTimeout: true,
    }),
  } as const;
}

/**
 * The SDK clients that send messages. Only SES's is made at cold start (its account is read then); SNS's and
 * End User Messaging's are made with their provider's first call, in the module loaded then
 * (functions/delivery/provider-wiring.ts), so a cold start neither reads nor evaluates their SDK clients.
 */
export interface SendClients {
  readonly ses: SESv2Client;
  /** SNS (texts when SMS goes through it, and push). @default - made with the first text or push */
  readonly sns?: SNSClient;
  /** End User Messaging SMS (`pinpoint-sms-voice-v2`), when SMS goes through it. @default - made with the first text */
  readonly eum?: PinpointSMSVoiceV2Client;
}

/** The clients made at cold start: SES's. */
export function createSendClients(sendTimeoutMs: number): SendClients {
  return { ses: new SESv2Client(sendClientConfig(sendTimeoutMs)) };
}
