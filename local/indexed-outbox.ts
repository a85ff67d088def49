import type { DeliveryOutcome, DeliveryProvider } from '../functions/core/provider/delivery-provider';
import type { DeliveryEvidence } from '../functions/core/policy/message-class';
import type { ProviderRequest } from '../functions/core/templates/rendered-message';
import { OutboxProvider } from '../functions/adapters/outbox-provider';

/**
 * The outbox provider with its key look-up answered from memory: `OutboxProvider.lookup`
 * re-reads the whole file, which is fine for tests and too slow for thousands of messages.
 * Every call still goes to the file, which stays the independent record of provider calls.
 */
export class IndexedOutbox implements DeliveryProvider {
  private readonly outbox: OutboxProvider;
  private readonly keys = new Set<string>();
  calls = 0;

  constructor(readonly file: string) {
    this.outbox = new OutboxProvider(file);
  }

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const outcome = await this.outbox.send(request, signal);
    if (outcome.kind === 'sent') {
      this.keys.add(request.key);
      this.calls += 1;
    }
    return outcome;
  }

  async lookup(key: string): Promise<DeliveryEvidence> {
    return this.keys.has(key) ? 'sent' : 'not-sent';
  }
}
