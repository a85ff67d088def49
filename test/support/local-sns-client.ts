import { SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll } from 'vitest';
import { startLocalSns, type LocalSns } from '../../local/aws/local-sns-server';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../../local/local-dynamo';

/** The local SNS server of one test file, and a real SNS client on it that makes one attempt per call. */
export interface TestSns {
  readonly sns: LocalSns;
  readonly client: SNSClient;
}

/** Starts the local SNS server before the file's tests and stops it after; read it inside a test or hook. */
export function useLocalSns(): TestSns {
  let current: TestSns | undefined;
  beforeAll(async () => {
    const sns = await startLocalSns();
    current = { sns, client: new SNSClient({ endpoint: sns.endpoint, region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS, maxAttempts: 1 }) };
  });
  afterAll(async () => {
    current?.client.destroy();
    await current?.sns.stop();
  });
  return {
    get sns() {
      if (!current) throw new Error('The local SNS server is not running: use it inside a test or a hook');
      return current.sns;
    },
    get client() {
      if (!current) throw new Error('The local SNS server is not running: use it inside a test or a hook');
      return current.client;
    },
  };
}
