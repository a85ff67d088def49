import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
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

/** The SDK clients that send messages. */
export interface SendClients {
  readonly ses: SESv2Client;
  readonly sns: SNSClient;
  /** End User Messaging SMS (`pinpoint-sms-voice-v2`), when SMS goes through it. @default none */
  readonly eum?: PinpointSMSVoiceV2Client;
}

/** The stack's SMS provider, embedded at synth (lib/destination-options.ts, SHIPPED_SMS_PROVIDER_IDENTIFIER); undefined unbundled. */
declare const __NOTIFIER_SMS_PROVIDER__: string | undefined;

export function createSendClients(sendTimeoutMs: number, { endUserMessaging = false }: { readonly endUserMessaging?: boolean } = {}): SendClients {
  const config = sendClientConfig(sendTimeoutMs);
  const clients = { ses: new SESv2Client(config), sns: new SNSClient(config) };
  // Folded at build time: a bundle built for SNS carries no End User Messaging client.
  if (typeof __NOTIFIER_SMS_PROVIDER__ !== 'undefined' && __NOTIFIER_SMS_PROVIDER__ !== 'end-user-messaging') return clients;
  return endUserMessaging ? { ...clients, eum: new PinpointSMSVoiceV2Client(config) } : clients;
}
