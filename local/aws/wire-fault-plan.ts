import { SES_KEY_TAG } from '../../functions/adapters/ses-email-provider';
import { EUM_KEY_CONTEXT } from '../../functions/adapters/eum-sms-provider';
import { SNS_KEY_ATTRIBUTE } from '../../functions/adapters/sns-provider';
import { LEDGER_TABLE } from '../../functions/core/ledger/ledger-table';
import { uniformOf } from '../prng';
import { awsErrorResponse, internalErrorResponse } from './aws-error-shapes';
import { PROVIDER_WIRE_ERRORS, isRefusal, isRejection, type ProviderWireError } from './provider-error-catalog';
import type { FaultDecider, WireFault } from './wire-fault-proxy';
import type { WireRequest, WireService } from './wire-operation';

/** Probability (0..1) of each wire fault per request. */
export interface WireFaultRates {
  /** DynamoDB and SQS: executed, answer lost. @default 0 */
  readonly loseResponse: number;
  /** DynamoDB and SQS: executed, answer after the client's timeout. @default 0 */
  readonly delayResponse: number;
  /** DynamoDB and SQS: connection reset before executing. @default 0 */
  readonly resetBefore: number;
  /** DynamoDB and SQS: 500 before executing. @default 0 */
  readonly serverErrorBefore: number;
  /** Providers: a documented refusal (throttle, quota, configuration fault): certainly not sent. @default 0 */
  readonly providerRefusal: number;
  /** Providers: a documented rejection of the recipient or content. @default 0 */
  readonly providerRejection: number;
  /** Providers: accepted, then a 500. @default 0 */
  readonly providerAcceptedThen500: number;
  /** Providers: accepted, then no answer past the send timeout. @default 0 */
  readonly providerHang: number;
  /** Providers: accepted, then the connection reset. @default 0 */
  readonly providerLostAnswer: number;
}

export const WIRE_FAULT_KINDS = [
  'loseResponse',
  'delayResponse',
  'resetBefore',
  'serverErrorBefore',
  'providerRefusal',
  'providerRejection',
  'providerAcceptedThen500',
  'providerHang',
  'providerLostAnswer',
] as const satisfies readonly (keyof WireFaultRates)[];
export type WireFaultKind = (typeof WIRE_FAULT_KINDS)[number];

export function wireFaults(rate: number): WireFaultRates {
  return Object.fromEntries(WIRE_FAULT_KINDS.map((k) => [k, rate])) as unknown as WireFaultRates;
}

const LEDGER_FAULTS = ['loseResponse', 'delayResponse', 'resetBefore', 'serverErrorBefore'] as const;
const PROVIDER_FAULTS = ['providerRefusal', 'providerRejection', 'providerAcceptedThen500', 'providerHang', 'providerLostAnswer'] as const;
const REFUSALS = PROVIDER_WIRE_ERRORS.filter(isRefusal);
const REJECTIONS = PROVIDER_WIRE_ERRORS.filter(isRejection);

/** What the provider-side judge needs to know about every send request that crossed the wire. */
export interface ProviderRequestRecord {
  readonly key: string;
  readonly fault: WireFaultKind | 'none';
  /** The documented error answered, for refusals and rejections. */
  readonly error?: ProviderWireError;
}

/**
 * Seeded, reproducible wire faults. The n-th request of one kind for one idempotency key (the
 * ledger row's `pk`, the provider request's key tag or attribute) draws its fault from
 * uniform(seed, service, operation, key, n), so a decision depends on the message and how often it
 * got that far, not on which worker got there first. Each fault kind fires at most
 * `maxPerKeyAndKind` times per key and operation, so every message eventually gets through.
 */
export class WireFaultPlan {
  private readonly opportunities = new Map<string, number>();
  private readonly fired = new Map<string, number>();
  readonly injected: Record<WireFaultKind, number> = Object.fromEntries(WIRE_FAULT_KINDS.map((k) => [k, 0])) as Record<WireFaultKind, number>;
  /** Every provider send request, with what was done to it. */
  readonly providerRequests: ProviderRequestRecord[] = [];
  /** Texts whose evidence (End User Messaging's events, SNS's delivery log) was held past the evidence windows, or lost (see {@link eventFate}). */
  readonly events = { late: 0, lost: 0 };
  /** E-mails whose SES events were held past the evidence windows, or lost (see {@link emailEventFate}). */
  readonly emailEvents = { late: 0, lost: 0 };
  private readonly textFates = new Map<string, 'deliver' | 'late' | 'lost'>();
  private readonly emailFates = new Map<string, 'deliver' | 'late' | 'lost'>();

  constructor(
    readonly seed: number,
    readonly rates: WireFaultRates,
    private readonly options: { readonly clientTimeoutMs: number; readonly maxPerKeyAndKind?: number },
  ) {}

  /** The decider for one service's proxy. */
  deciderFor(service: WireService): FaultDecider {
    return (request) => (isProviderService(service) ? this.providerFault(request) : this.ledgerFault(request));
  }

  get totalInjected(): number {
    return WIRE_FAULT_KINDS.reduce((sum, k) => sum + this.injected[k], 0);
  }

  private ledgerFault(request: WireRequest): WireFault | undefined {
    const site = `${request.service}|${request.ledgerWrite ?? request.operation}`;
    const key = ledgerKeyOf(request);
    for (const kind of LEDGER_FAULTS) {
      if (!this.roll(kind, site, key)) continue;
      switch (kind) {
        case 'loseResponse':
          return { kind: 'lose-response' };
        case 'delayResponse':
          return { kind: 'delay-response', ms: this.options.clientTimeoutMs + 300 };
        case 'resetBefore':
          return { kind: 'reset-before' };
        case 'serverErrorBefore':
          return { kind: 'error-before', response: internalErrorResponse(request.service) };
      }
    }
    return undefined;
  }

  private providerFault(request: WireRequest): WireFault | undefined {
    if (!PROVIDER_SENDS.has(request.operation)) return undefined;
    const key = providerKeyOf(request) ?? 'no-key';
    const service = request.service as ProviderService;
    for (const kind of PROVIDER_FAULTS) {
      if (!this.roll(kind, service, key)) continue;
      const record = (error?: ProviderWireError) => this.providerRequests.push({ key, fault: kind, ...(error ? { error } : {}) });
      switch (kind) {
        case 'providerRefusal':
        case 'providerRejection': {
          const error = this.pick(kind === 'providerRefusal' ? REFUSALS : REJECTIONS, service, key);
          record(error);
          return { kind: 'error-before', response: awsErrorResponse(service, error.status, error.code, error.message, error.modeled) };
        }
        case 'providerAcceptedThen500':
          record();
          return { kind: 'error-after', response: internalErrorResponse(service) };
        case 'providerHang':
          record();
          return { kind: 'hang' };
        case 'providerLostAnswer':
          record();
          return { kind: 'lose-response' };
      }
    }
    this.providerRequests.push({ key, fault: 'none' });
    return undefined;
  }

  /**
   * The fate of one text's evidence, End User Messaging's events (all of a text's events share it) or SNS's delivery
   * log line (a run has one SMS provider): seeded by the key and the text's message id, so a resend's draws again.
   */
  eventFate(key: string | undefined, messageId: string, rates: { readonly late: number; readonly lost: number }, lateMs: number): 'deliver' | 'drop' | { readonly delayMs: number } {
    return this.fateOf({ stream: 'eum-events', fates: this.textFates, counts: this.events }, key, messageId, rates, lateMs);
  }

  /**
   * The fate of one e-mail's SES events (all of an e-mail's events share it: SES publishes them to one destination),
   * drawn as a text's are but from their own stream, so adding e-mail events shifts no text's fate.
   */
  emailEventFate(key: string | undefined, messageId: string, rates: { readonly late: number; readonly lost: number }, lateMs: number): 'deliver' | 'drop' | { readonly delayMs: number } {
    return this.fateOf({ stream: 'ses-events', fates: this.emailFates, counts: this.emailEvents }, key, messageId, rates, lateMs);
  }

  private fateOf(
    where: { readonly stream: string; readonly fates: Map<string, 'deliver' | 'late' | 'lost'>; readonly counts: { late: number; lost: number } },
    key: string | undefined,
    messageId: string,
    rates: { readonly late: number; readonly lost: number },
    lateMs: number,
  ): 'deliver' | 'drop' | { readonly delayMs: number } {
    const message = `${key ?? 'no-key'}|${messageId}`;
    let fate = where.fates.get(message);
    if (!fate) {
      const draw = uniformOf(this.seed, where.stream, message);
      fate = draw < rates.lost ? 'lost' : draw < rates.lost + rates.late ? 'late' : 'deliver';
      where.fates.set(message, fate);
      if (fate !== 'deliver') where.counts[fate] += 1;
    }
    return fate === 'lost' ? 'drop' : fate === 'late' ? { delayMs: lateMs } : 'deliver';
  }

  private roll(kind: WireFaultKind, site: string, key: string): boolean {
    const rate = this.rates[kind];
    if (!(rate > 0)) return false;
    const id = `${kind}|${site}|${key}`;
    const n = this.opportunities.get(id) ?? 0;
    this.opportunities.set(id, n + 1);
    if ((this.fired.get(id) ?? 0) >= (this.options.maxPerKeyAndKind ?? 1)) return false;
    if (uniformOf(this.seed, kind, site, key, n) >= rate) return false;
    this.fired.set(id, (this.fired.get(id) ?? 0) + 1);
    this.injected[kind] += 1;
    return true;
  }

  /** The provider's own errors for this service, one chosen by the seed. */
  private pick(errors: readonly ProviderWireError[], service: ProviderService, key: string): ProviderWireError {
    const own = errors.filter((e) => e.service === service);
    return own[Math.floor(uniformOf(this.seed, 'pick', service, key) * own.length)] ?? own[0]!;
  }
}

/** The ledger row a DynamoDB request is about (its idempotency key, `sk`), or the operation for a Query. */
export function ledgerKeyOf(request: WireRequest): string {
  try {
    const body = JSON.parse(request.body) as { Key?: Record<string, { S?: string }>; Item?: Record<string, { S?: string }> };
    const sk = LEDGER_TABLE.sortKey;
    return body.Key?.[sk]?.S ?? body.Item?.[sk]?.S ?? request.operation;
  } catch {
    return request.operation;
  }
}

/** The providers' send operations, whichever service. */
export const PROVIDER_SENDS: ReadonlySet<string> = new Set(['SendEmail', 'Publish', 'SendTextMessage']);
type ProviderService = 'sesv2' | 'sns' | 'sms-voice';
function isProviderService(service: WireService): service is ProviderService {
  return service === 'sesv2' || service === 'sns' || service === 'sms-voice';
}

/** The idempotency key a provider request carries: SES v2's e-mail tag, SNS's message attribute, End User Messaging's Context. */
export function providerKeyOf(request: WireRequest): string | undefined {
  if (request.service === 'sms-voice') {
    try {
      return (JSON.parse(request.body) as { Context?: Record<string, string> }).Context?.[EUM_KEY_CONTEXT];
    } catch {
      return undefined;
    }
  }
  if (request.service === 'sesv2') {
    try {
      const tags = (JSON.parse(request.body) as { EmailTags?: { Name?: string; Value?: string }[] }).EmailTags ?? [];
      return tags.find((t) => t.Name === SES_KEY_TAG)?.Value;
    } catch {
      return undefined;
    }
  }
  const form = new URLSearchParams(request.body);
  for (let i = 1; form.has(`MessageAttributes.entry.${i}.Name`); i += 1) {
    if (form.get(`MessageAttributes.entry.${i}.Name`) === SNS_KEY_ATTRIBUTE) return form.get(`MessageAttributes.entry.${i}.Value.StringValue`) ?? undefined;
  }
  return undefined;
}
