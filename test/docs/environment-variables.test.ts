import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient, ListEventBusesCommand } from '@aws-sdk/client-eventbridge';
import { GetAccountCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { ListTopicsCommand, SNSClient } from '@aws-sdk/client-sns';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLoopbackServer } from '../support/loopback-http';

const ROOT = join(__dirname, '..', '..');
/** The README and every page under docs/. */
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))]
  .map((path) => readFileSync(join(ROOT, path), 'utf8'))
  .join('\n');

/** Upper-case names the docs show that are neither environment variables nor our exported constants. */
const NOT_ENVIRONMENT: Readonly<Record<string, string>> = {
  APNS_SANDBOX: 'a key of the SNS push payload',
  NEW_AND_OLD_IMAGES: "a DynamoDB stream's view type",
};

/** Read by the AWS SDK or the CDK CLI themselves, not by our code. */
const READ_BY_TOOLS = new Set(['AWS_REGION', 'AWS_PROFILE', 'AWS_ENDPOINT_URL', 'CDK_DISABLE_VERSION_CHECK', 'CDK_DISABLE_CLI_TELEMETRY']);

/** One request of the SDK client each service-specific endpoint variable configures. */
const ENDPOINT_PROBES: Readonly<Record<string, () => Promise<unknown>>> = {
  AWS_ENDPOINT_URL_DYNAMODB: () => new DynamoDBClient({ maxAttempts: 1 }).send(new ListTablesCommand({})),
  AWS_ENDPOINT_URL_SQS: () => new SQSClient({ maxAttempts: 1 }).send(new ListQueuesCommand({})),
  AWS_ENDPOINT_URL_SESV2: () => new SESv2Client({ maxAttempts: 1 }).send(new GetAccountCommand({})),
  AWS_ENDPOINT_URL_SNS: () => new SNSClient({ maxAttempts: 1 }).send(new ListTopicsCommand({})),
  AWS_ENDPOINT_URL_EVENTBRIDGE: () => new EventBridgeClient({ maxAttempts: 1 }).send(new ListEventBusesCommand({})),
};

function variablesNamedInDocs(): string[] {
  const names = new Set<string>();
  for (const [, span] of DOCS.matchAll(/`([^`\n]+)`/g)) {
    const match = /^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=|$)/.exec(span!);
    if (match) names.add(match[1]!);
  }
  for (const [, name] of DOCS.matchAll(/^(?:\s*(?:export\s+)?)([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/gm)) names.add(name!);
  return [...names].filter((name) => !(name in NOT_ENVIRONMENT)).sort();
}

function sourceText(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|mjs|js)$/.test(entry)) texts.push(readFileSync(path, 'utf8'));
    }
  };
  for (const dir of ['functions', 'lib', 'bin', 'local', 'cli', 'bench', 'scripts', 'test/support', 'test/interleavings', 'test/wire']) walk(join(ROOT, dir));
  return texts.join('\n');
}

describe('every environment variable the README and docs/ name is read', () => {
  afterEach(() => vi.unstubAllEnvs());

  const source = sourceText();
  // A name our code exports as a constant (SES_KEY_TAG, RECLAIMER_ENV, ...) is code, not environment.
  const named = variablesNamedInDocs().filter((name) => !new RegExp(`export const ${name}\\b`).test(source));

  it('names some (the extraction works)', () => {
    expect(named).toEqual(expect.arrayContaining(['LEDGER_TABLE_NAME', 'AWS_ENDPOINT_URL_DYNAMODB']));
  });

  it.each(named.filter((name) => !READ_BY_TOOLS.has(name) && !name.startsWith('AWS_ENDPOINT_URL_')))('%s is read by our code', (name) => {
    expect(source).toMatch(new RegExp(`['"\`]${name}['"\`]|process\\.env\\.${name}\\b`));
  });

  it.each(named.filter((name) => name.startsWith('AWS_ENDPOINT_URL_')))('%s sends its SDK client to the given endpoint', async (name) => {
    const probe = ENDPOINT_PROBES[name];
    expect(probe, `${name} configures no client this product uses`).toBeDefined();
    const server = await startLoopbackServer((_req, res) => res.writeHead(500).end());
    try {
      vi.stubEnv(name, server.endpoint);
      await probe!().catch(() => undefined);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
