import type { DeliveryOutcome, DeliveryProvider } from '../functions/core/provider/delivery-provider';
import { keyPrefix } from '../functions/core/event/idempotency-key';
import type { DeliveryEvidence } from '../functions/core/policy/message-class';
import { maskAddress } from '../functions/core/event/recipient-address';
import type { ProviderRequest } from '../functions/core/templates/rendered-message';

/**
 * One human-readable line per provider call: what the provider did, channel, masked recipient, template, short
 * key. Never content. A send the provider took reads `accepted`, not `sent`: the provider may still refuse it
 * afterwards (SES bounces an e-mail to an unsubscribed contact), and the message's final state is the ledger's.
 */
export function describeSend(request: ProviderRequest, outcome: DeliveryOutcome): string {
  const verdict = outcome.kind === 'sent' ? 'accepted' : outcome.kind;
  return [
    verdict.padEnd(9),
    request.message.channel.padEnd(5),
    fit(maskAddress(request.message.to), 28),
    request.templateId.padEnd(14),
    `class ${request.messageClass}`.padEnd(19),
    `key ${keyPrefix(request.key)}`,
  ].join(' ');
}

/** Pads or shortens from the left (keeps the informative end of long endpoint ARNs). */
function fit(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : `...${text.slice(text.length - width + 3)}`;
}

/** Prints every call that reaches the wrapped provider (the local runner's view of the outbox). */
export class PrintingProvider implements DeliveryProvider {
  constructor(
    private readonly inner: DeliveryProvider,
    private readonly print: (line: string) => void,
  ) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const outcome = await this.inner.send(request, signal);
    this.print(describeSend(request, outcome));
    return outcome;
  }

  lookup(key: string): Promise<DeliveryEvidence> {
    return this.inner.lookup ? this.inner.lookup(key) : Promise.resolve('none');
  }

  /** The provider's opt-out question, passed through unprinted (no message is sent by it); none when the provider has none. */
  get optedOut(): DeliveryProvider['optedOut'] {
    const inner = this.inner;
    return inner.optedOut ? (address, signal) => inner.optedOut!(address, signal) : undefined;
  }
}
