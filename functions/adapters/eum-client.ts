import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { sendClientConfig } from './send-clients';

/** The End User Messaging SMS client, made with the first text (provider-wiring.ts loads this module then). */
export function newEumClient(sendTimeoutMs: number): PinpointSMSVoiceV2Client {
  return new PinpointSMSVoiceV2Client(sendClientConfig(sendTimeoutMs));
}
