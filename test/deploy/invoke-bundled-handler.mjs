// Runs one bundled Lambda asset the way Lambda does: imports it as ESM, invokes `handler` once with the
// event file, and prints `SMOKE_RESULT <json>` (with the Node version that ran it). Usage:
//   <node> invoke-bundled-handler.mjs <asset>/index.mjs <event.json>
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [assetFile, eventFile] = process.argv.slice(2);
if (!assetFile || !eventFile) throw new Error('usage: invoke-bundled-handler.mjs <index.mjs> <event.json>');
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const { handler } = await import(pathToFileURL(assetFile).href);
const deadline = Date.now() + Number(process.env.FUNCTION_TIMEOUT_SECONDS ?? '30') * 1000;
const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'smoke';
const context = {
  functionName,
  functionVersion: '$LATEST',
  invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
  memoryLimitInMB: '512',
  awsRequestId: `smoke-${Date.now()}`,
  logGroupName: `/aws/lambda/${functionName}`,
  logStreamName: 'smoke',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => Math.max(deadline - Date.now(), 0),
  done() {},
  fail() {},
  succeed() {},
};
const result = await handler(event, context);
process.stdout.write(`\nSMOKE_RESULT ${JSON.stringify({ node: process.version, result })}\n`);
// Keep-alive sockets of the SDK clients would hold the process open, as Lambda freezes it instead.
process.exit(0);
