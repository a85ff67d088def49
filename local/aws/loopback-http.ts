import { request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The whole body of a request, as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** An HTTP answer held in memory. */
export interface BufferedAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Sends the same request to a server on 127.0.0.1:`port` and buffers its answer. */
export function forwardToLoopback(port: number, req: IncomingMessage, body: string): Promise<BufferedAnswer> {
  return new Promise((resolve, reject) => {
    const inner = request(
      // The length of the body sent (a front may have rewritten it), not of the one received.
      { host: '127.0.0.1', port, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${port}`, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    inner.on('error', reject);
    inner.end(body);
  });
}

/** Writes a buffered answer back, with a correct length (hop-by-hop headers dropped). */
export function replay(res: ServerResponse, answer: BufferedAnswer): void {
  const { connection: _connection, 'transfer-encoding': _encoding, 'content-length': _length, 'keep-alive': _keepAlive, ...headers } = answer.headers;
  res.writeHead(answer.status, { ...headers, 'content-length': answer.body.length });
  res.end(answer.body);
}

/** Listens on a free port of 127.0.0.1 (never on every interface). */
export function listenOnLoopback(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Closes the server and its open keep-alive connections. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
