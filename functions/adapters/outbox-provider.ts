import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DeliveryOutcome, DeliveryProvider } from '../core/provider/delivery-provider';
import type { DeliveryEvidence } from '../core/policy/message-class';
import type { ProviderRequest } from '../core/templates/rendered-message';

/** One line of the outbox file: one provider call. */
export interface OutboxLine {
  readonly at: string;
  readonly key: string;
  readonly providerMessageId: string;
  readonly messageClass: string;
  readonly templateId: string;
  readonly message: ProviderRequest['message'];
}

/**
 * A provider for local runs and tests: every call appends one JSON line to a file, so
 * what "reached the provider" can be counted independently of the ledger.
 * It is also the one provider that can answer a look-up by our own key.
 */
export class OutboxProvider implements DeliveryProvider {
  private ready: Promise<unknown> | undefined;

  constructor(
    readonly file: string,
    private readonly clock: () => number = Date.now,
  ) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    if (signal.aborted) return { kind: 'transient', cause: 'unavailable', reason: 'SendTimeout: aborted before the call' };
    const line: OutboxLine = {
      at: new Date(this.clock()).toISOString(),
      key: request.key,
      providerMessageId: `outbox-${randomUUID()}`,
      messageClass: request.messageClass,
      templateId: request.templateId,
      message: request.message,
    };
    this.ready ??= mkdir(dirname(this.file), { recursive: true });
    await this.ready;
    await appendFile(this.file, `${JSON.stringify(line)}\n`, 'utf8');
    return { kind: 'sent', providerMessageId: line.providerMessageId };
  }

  async lookup(key: string): Promise<DeliveryEvidence> {
    const lines = await readOutbox(this.file);
    return lines.some((line) => line.key === key) ? 'sent' : 'not-sent';
  }
}

/** Reads every call recorded in an outbox file (missing file: none). */
export async function readOutbox(file: string): Promise<OutboxLine[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as OutboxLine);
}
