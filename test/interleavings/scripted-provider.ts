import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import type { PortGates } from './port-gates';

/**
 * What the provider does with one call:
 * - `accept`: sends and answers with its message id;
 * - `throttle`: refuses (certainly not sent);
 * - `reject`: rejects permanently (bad address);
 * - `accept-answer-lost`: sends, and the answer is lost (a timeout after the provider acted);
 * - `lost-before`: the call times out before the provider saw it (ambiguous to the caller, nothing sent).
 */
export type ProviderAnswer = 'accept' | 'throttle' | 'reject' | 'accept-answer-lost' | 'lost-before';

/** One send the provider accepted: the providers' side of the history. */
export interface AcceptedSend {
  readonly key: string;
  readonly providerMessageId: string;
  readonly channel: string;
  /** The address it went to: a fallback is counted at its address, whatever key it was sent under. @default unknown */
  readonly to?: string;
  /** The claim version the call was made under (End User Messaging's events name it). @default unknown */
  readonly claimVersion?: number;
  readonly actor: string;
  /** Whether the answer carried the id back to a caller (false: lost, or the caller died). */
  answered: boolean;
  /** The model clock when the provider acted. */
  readonly at: number;
  /** The ledger's count of executed requests when the provider acted. */
  readonly ledgerCountAtSend: number;
  /**
   * Whether the caller of this key's previous accepted send still held the claim when this one was
   * made: alive, not returned, and none of its writes on the row since that send succeeded.
   */
  readonly previousSenderHeldClaim: boolean;
}

/**
 * A permanent refusal, as each provider words it (the reason starts with the error's name, as provider-outcome.ts
 * keeps it): SNS refuses a disabled push endpoint and an invalid number (the recipient's address: a reason to fall
 * back), SES a message (`MessageRejected`: the content, which is not).
 */
const REJECTION: Readonly<Record<ProviderRequest['message']['channel'], string>> = {
  email: 'MessageRejected: Illegal address',
  sms: 'InvalidParameterException: Invalid parameter: PhoneNumber Reason: +1415555xxxx is not valid to publish to',
  push: 'EndpointDisabledException: Endpoint is disabled',
};

/** The providers as the scheduler and the fault plan decide them; no look-up (as SES v2 and SNS). */
export class ScriptedProviders {
  readonly accepted: AcceptedSend[] = [];
  /** Every request that reached the provider, accepted or not: the attempts (key, claim version) a provider event can name. */
  readonly requested: { readonly key: string; readonly claimVersion: number | undefined }[] = [];
  /** Keys the provider rejected permanently at least once. */
  readonly rejectedKeys = new Set<string>();
  private calls = 0;
  private enabled = true;
  /** Answers other than `accept`, by kind. */
  readonly faults = new Map<string, number>();

  constructor(
    private readonly gates: PortGates,
    /** Which provider calls (by global call number) answer otherwise than `accept`. */
    private readonly plan: ReadonlyMap<number, ProviderAnswer>,
    private readonly clock: () => number,
    private readonly ledger: { readonly executed: readonly unknown[]; handedBack(actor: string, key: string, sinceCount: number): boolean },
  ) {}

  stopFaults(): void {
    this.enabled = false;
  }

  acceptedFor(key: string): AcceptedSend[] {
    return this.accepted.filter((send) => send.key === key);
  }

  /** The provider port for one actor. */
  forActor(actor: string): DeliveryProvider {
    return { send: (request) => this.send(actor, request) };
  }

  private async send(actor: string, request: ProviderRequest): Promise<DeliveryOutcome> {
    this.calls += 1;
    this.requested.push({ key: request.key, claimVersion: request.claimVersion });
    const answer: ProviderAnswer = (this.enabled ? this.plan.get(this.calls) : undefined) ?? 'accept';
    if (answer !== 'accept') this.faults.set(`provider ${answer}`, (this.faults.get(`provider ${answer}`) ?? 0) + 1);
    const what = `${request.message.channel} ${request.key.slice(-6)}`;
    await this.gates.pass(actor, `provider-request ${what}`);
    let outcome: DeliveryOutcome;
    let send: AcceptedSend | undefined;
    switch (answer) {
      case 'accept':
      case 'accept-answer-lost': {
        const previous = this.acceptedFor(request.key).at(-1);
        send = {
          key: request.key,
          at: this.clock(),
          ledgerCountAtSend: this.ledger.executed.length,
          previousSenderHeldClaim:
            previous !== undefined &&
            this.gates.isRunning(previous.actor) &&
            !this.ledger.handedBack(previous.actor, request.key, previous.ledgerCountAtSend),
          providerMessageId: `${request.message.channel}-msg-${this.accepted.length + 1}`,
          channel: request.message.channel,
          to: request.message.to,
          claimVersion: request.claimVersion,
          actor,
          answered: false,
        };
        this.accepted.push(send);
        outcome =
          answer === 'accept'
            ? { kind: 'sent', providerMessageId: send.providerMessageId }
            : { kind: 'ambiguous', reason: 'SendTimeout: the answer was lost after the provider accepted' };
        break;
      }
      case 'throttle':
        outcome = { kind: 'transient', cause: 'throttled', reason: 'TooManyRequestsException: slow down' };
        break;
      case 'reject':
        this.rejectedKeys.add(request.key);
        outcome = { kind: 'permanent', reason: REJECTION[request.message.channel] };
        break;
      case 'lost-before':
        outcome = { kind: 'ambiguous', reason: 'SendTimeout: no answer' };
        break;
    }
    await this.gates.pass(actor, `provider-response ${what} ${answer}`);
    if (send && answer === 'accept') send.answered = true;
    return outcome;
  }
}
