import { createHash } from 'node:crypto';
import { startLoopbackServer, type LoopbackServer } from './loopback-http';

/** A loopback stand-in for SQS `SendMessage` (AWS JSON 1.0), recording what was sent. */
export async function startFakeSqs(): Promise<LoopbackServer & { sent: () => { MessageBody: string; MessageAttributes: Record<string, { StringValue: string }> }[] }> {
  const server = await startLoopbackServer((req, res, body) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target !== 'AmazonSQS.SendMessage') {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidAction', message: `unsupported ${target}` }));
      return;
    }
    const input = JSON.parse(body) as { MessageBody: string };
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(
      JSON.stringify({
        MessageId: `dlq-${server.requests.length}`,
        MD5OfMessageBody: createHash('md5').update(input.MessageBody).digest('hex'),
      }),
    );
  });
  return Object.assign(server, {
    sent: () => server.requests.filter((r) => r.headers['x-amz-target'] === 'AmazonSQS.SendMessage').map((r) => JSON.parse(r.body)),
  });
}
