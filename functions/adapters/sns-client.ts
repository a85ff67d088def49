import { SNSClient } from '@aws-sdk/client-sns';
import { sendClientConfig } from './send-clients';

/** The SNS client of texts and push, made with the first of them (provider-wiring.ts loads this module then). */
export function newSnsClient(sendTimeoutMs: number): SNSClient {
  return new SNSClient(sendClientConfig(sendTimeoutMs));
}
