import { describe, expect, it } from 'vitest';
import { fallbackDecision } from '../../../functions/core/fallback/fallback-decision';
import { primaryVerdict, type VerdictRow } from '../../../functions/core/fallback/primary-verdict';
import type { LedgerState } from '../../../functions/core/ledger/ledger-record';
import { STATUS_MEANINGS } from '../../../functions/core/provider/delivery-status-meaning';
import { SUPPRESSION_REASONS } from '../../../functions/core/policy/suppression';

const SENT_AT = 1_000_000;
const STATES: readonly LedgerState[] = ['PENDING', 'SENT', 'FAILED', 'UNKNOWN', 'SUPPRESSED'];

/** FAILED reasons as the ledger writes them (provider-outcome.ts: the error's name first), and whether each is the recipient's. */
const FAILURE_REASONS: ReadonlyArray<readonly [string, boolean]> = [
  ['InvalidAddress: no email address for channel email', true],
  ['InvalidAddress: phone number is not E.164 (+ and 7 to 15 digits)', true],
  ['EndpointDisabledException: Endpoint is disabled', true],
  ['NotFoundException: Endpoint does not exist', true],
  ['InvalidParameterException: Invalid parameter: PhoneNumber Reason: <number> is not valid to publish to', true],
  ['InvalidParameterException: Invalid parameter: Message too long', false],
  ['OptedOutException: Phone number is opted out', true],
  ['OptedOut: ConflictException DESTINATION_PHONE_NUMBER_OPTED_OUT: opted out', true],
  ['MessageRejected: Email address is on the suppression list', false],
  ['NotSent: the sms text is not well-formed Unicode', false],
  ['TemplateNotFound: no template login-code', false],
  ['LifetimeExpired: the code ran out', false],
  ['SettleBoundReached: 30 min after the first claim', false],
  ['RequestNotStored: the reclaimer has no message', false],
  ['ProtectBlocked: ConflictException DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION: x', false],
];

/**
 * Provider statuses that end a message undelivered for the recipient's reason (with the bounce's detail where it
 * matters). Not SNS's SMS `FAILURE` (AWS's example: "Unknown error attempting to reach phone") nor
 * `TEXT_CARRIER_BLOCKED` (the carrier judged the content): an AWS-docs review found both read as certain.
 */
const HARD: ReadonlyArray<readonly [string, string | undefined]> = [
  ['Bounce', 'Permanent/General'],
  ['Bounce', 'Permanent/NoEmail'],
  ['Bounce', 'Transient/MailboxFull'],
  ['TEXT_UNREACHABLE', undefined],
  ['TEXT_BLOCKED', undefined],
  ['TEXT_INVALID', undefined],
  ['TEXT_TTL_EXPIRED', undefined],
];
const CONTENT_OR_RULE = new Set(['TEXT_CARRIER_BLOCKED', 'TEXT_SPAM', 'TEXT_INVALID_MESSAGE', 'TEXT_PROTECT_BLOCKED', 'Reject', 'RenderingFailure']);
/** SES's transient bounces of the message itself: kept from fallback like the blocks above. */
const CONTENT_BOUNCES = new Set(['Transient/MessageTooLarge', 'Transient/ContentRejected', 'Transient/AttachmentRejected']);
const isContentOrRule = (status: string | undefined, detail: string | undefined) => CONTENT_OR_RULE.has(status ?? '') || (status === 'Bounce' && CONTENT_BOUNCES.has(detail ?? ''));
const DELIVERED = new Set(['Delivery', 'Open', 'Click', 'Complaint', 'Subscription', 'SUCCESS', 'TEXT_DELIVERED', 'TEXT_SUCCESSFUL']);

function row(fields: Partial<VerdictRow> & { state: LedgerState }): VerdictRow {
  return { updatedAt: SENT_AT, resolvedAt: SENT_AT, ...fields };
}

/** Every status the ledger can hold, with each bounce detail SES gives, and none. */
function statuses(): ReadonlyArray<readonly [string | undefined, string | undefined]> {
  const all: Array<readonly [string | undefined, string | undefined]> = [[undefined, undefined]];
  for (const status of Object.keys(STATUS_MEANINGS)) {
    if (status === 'Bounce') {
      for (const detail of ['Permanent/General', 'Transient/MailboxFull', 'Transient/General', 'Transient/ContentRejected', 'Transient/MessageTooLarge', 'Transient/AttachmentRejected', 'Undetermined/Undetermined', undefined]) {
        all.push([status, detail]);
      }
    }
    else all.push([status, undefined]);
  }
  return all;
}

const isHard = (status: string | undefined, detail: string | undefined) => HARD.some(([s, d]) => s === status && (d === undefined || d === detail));

describe('primaryVerdict: every state, reason and status the ledger can hold', () => {
  it('reads each combination as the design says, keeping the three facts apart', () => {
    let cases = 0;
    for (const state of STATES) {
      for (const [status, detail] of statuses()) {
        for (const lastAmbiguousAt of [undefined, SENT_AT - 1]) {
          const reasons: ReadonlyArray<Partial<VerdictRow>> =
            state === 'FAILED'
              ? FAILURE_REASONS.map(([failureReason]) => ({ failureReason }))
              : state === 'SUPPRESSED'
                ? SUPPRESSION_REASONS.map((suppressionReason) => ({ suppressionReason }))
                : [{}];
          for (const reason of reasons) {
            cases += 1;
            const input = row({ state, ...reason, ...(status ? { deliveryStatus: status } : {}), ...(detail ? { deliveryStatusDetail: detail } : {}), ...(lastAmbiguousAt ? { lastAmbiguousAt } : {}) });
            const verdict = primaryVerdict(input).kind;
            const where = JSON.stringify(input);
            if (status !== undefined && DELIVERED.has(status)) {
              expect(verdict, where).toBe('delivered');
            } else if (state === 'PENDING') {
              expect(verdict, where).toBe('pending');
            } else if (state === 'FAILED') {
              // A refusal or a stop names one attempt: an earlier one whose outcome is unknown may still have arrived.
              const recipients = FAILURE_REASONS.find(([text]) => text === input.failureReason)![1];
              expect(verdict, where).toBe(!recipients ? 'kept-from-fallback' : lastAmbiguousAt === undefined ? 'certainly-undelivered' : 'possibly-delivered');
            } else if (state === 'SUPPRESSED') {
              const consent = input.suppressionReason === 'Unsubscribed' || input.suppressionReason === 'OptedOut';
              expect(verdict, where).toBe(!consent ? 'kept-from-fallback' : lastAmbiguousAt === undefined ? 'certainly-undelivered' : 'possibly-delivered');
            } else {
              // SENT or UNKNOWN: only a hard failure of the one attempt that may have gone is certain; a block of its
              // content or by a rule is as final, but a fallback must not carry the content or dodge the rule.
              const alone = lastAmbiguousAt === undefined;
              expect(verdict, where).toBe(
                isHard(status, detail) && alone ? 'certainly-undelivered' : isContentOrRule(status, detail) && alone ? 'kept-from-fallback' : 'possibly-delivered',
              );
            }
          }
        }
      }
    }
    expect(cases).toBeGreaterThan(400);
  });

  // An AWS-docs review (2026-12-06): SES publishes a bounce only once it has given up, so a full mailbox is this mail
  // undelivered, and a bounce of the message itself is its content; but a transient `General` bounce "typically
  // happens when the recipient has set up an 'out of the office' automatic reply" (AWS's article on soft bounces).
  it('reads an SES bounce by its type and subtype: a full mailbox certain, the message refused kept from fallback, an out-of-office or undetermined one possibly delivered', () => {
    const verdictOf = (detail: string) => primaryVerdict(row({ state: 'SENT', deliveryStatus: 'Bounce', deliveryStatusDetail: detail })).kind;
    expect(verdictOf('Transient/MailboxFull')).toBe('certainly-undelivered');
    for (const subtype of ['MessageTooLarge', 'ContentRejected', 'AttachmentRejected']) expect(verdictOf(`Transient/${subtype}`), subtype).toBe('kept-from-fallback');
    expect(verdictOf('Transient/General')).toBe('possibly-delivered');
    expect(verdictOf('Undetermined/Undetermined')).toBe('possibly-delivered');
    expect(verdictOf('Permanent/Suppressed')).toBe('certainly-undelivered');
  });

  it('never calls a possibly out-of-office or undetermined bounce or an unknown-cause text certain', () => {
    for (const [status, detail] of [['Bounce', 'Transient/General'], ['Bounce', 'Undetermined/Undetermined'], ['TEXT_UNKNOWN', undefined], ['TEXT_CARRIER_UNREACHABLE', undefined], ['DeliveryDelay', undefined], ['Send', undefined]] as const) {
      expect(primaryVerdict(row({ state: 'SENT', deliveryStatus: status, ...(detail ? { deliveryStatusDetail: detail } : {}) })).kind).toBe('possibly-delivered');
    }
  });

  // Defect found by an AWS-docs review (2026-12-06): a final carrier or spam block, a protect configuration's block or
  // a refused body read as "possibly delivered", so otp's no-evidence window sent the fallback with the same content
  // (or past the protect configuration). AWS: the carrier "blocks the delivery of the message".
  it('keeps a final content or rule block from every fallback, the no-evidence window included', () => {
    const otp = { enabled: true, withoutEvidenceSeconds: 120 };
    for (const status of ['TEXT_CARRIER_BLOCKED', 'TEXT_SPAM', 'TEXT_INVALID_MESSAGE', 'TEXT_PROTECT_BLOCKED', 'Reject', 'RenderingFailure']) {
      const blocked = row({ state: 'SENT', deliveryStatus: status });
      expect(primaryVerdict(blocked), status).toEqual({ kind: 'kept-from-fallback', reason: status });
      expect(fallbackDecision(blocked, otp, SENT_AT + 3_600_000), status).toEqual({ kind: 'none', why: 'kept-from-fallback' });
      // Not final yet: the carrier may still deliver, and the window decides.
      expect(primaryVerdict({ ...blocked, deliveryStatusIntermediate: true }).kind, status).toBe('possibly-delivered');
    }
  });

  // Defect found by the interleaving model (seed 4, path 40): an otp text accepted with its answer lost, resent at once
  // and refused (an invalid number), ended FAILED with the ambiguity on its row, and fell back at once, counted as
  // certain, while the first text may have arrived.
  it('never calls a refusal or a stop certain after an earlier attempt that may have gone (lastAmbiguousAt)', () => {
    const ambiguous = { lastAmbiguousAt: SENT_AT - 1 };
    for (const failureReason of ['EndpointDisabledException: Endpoint is disabled', 'InvalidParameterException: Invalid parameter: PhoneNumber Reason: x', 'OptedOut: ConflictException DESTINATION_PHONE_NUMBER_OPTED_OUT: opted out']) {
      expect(primaryVerdict(row({ state: 'FAILED', failureReason, ...ambiguous }))).toEqual({ kind: 'possibly-delivered', sentAtMs: SENT_AT });
    }
    expect(primaryVerdict(row({ state: 'SUPPRESSED', suppressionReason: 'Unsubscribed', ...ambiguous }))).toEqual({ kind: 'possibly-delivered', sentAtMs: SENT_AT });
  });

  it('never calls a limit or a destination rule certain: a fallback would dodge it', () => {
    for (const suppressionReason of ['AddressLimit', 'RecipientLimit', 'NumberBlockLimit', 'CountryNotAllowed', 'PushApplicationNotAllowed'] as const) {
      expect(primaryVerdict(row({ state: 'SUPPRESSED', suppressionReason })).kind).toBe('kept-from-fallback');
    }
  });
});

describe('fallbackDecision: the class setting and the clock', () => {
  const transactional = { enabled: true };
  const otp = { enabled: true, withoutEvidenceSeconds: 120 };
  const marketing = { enabled: false };

  it('falls back at once on a certain verdict, in every class that falls back', () => {
    const refused = row({ state: 'FAILED', failureReason: 'EndpointDisabledException: Endpoint is disabled' });
    for (const policy of [transactional, otp]) {
      expect(fallbackDecision(refused, policy, SENT_AT)).toEqual({ kind: 'fall-back', trigger: 'certainly-undelivered', reason: 'EndpointDisabledException: Endpoint is disabled' });
    }
  });

  it('never falls back in a class that says never, whatever the verdict', () => {
    expect(fallbackDecision(row({ state: 'SUPPRESSED', suppressionReason: 'OptedOut' }), marketing, SENT_AT)).toEqual({ kind: 'none', why: 'class-never-falls-back' });
  });

  it('waits on a possibly delivered row only in a class with a window, and falls back without evidence at its end', () => {
    const unknown = row({ state: 'UNKNOWN', lastAmbiguousAt: SENT_AT - 5 });
    expect(fallbackDecision(unknown, transactional, SENT_AT + 10_000_000)).toEqual({ kind: 'none', why: 'possibly-delivered' });
    expect(fallbackDecision(unknown, otp, SENT_AT + 119_999)).toEqual({ kind: 'check-at', atMs: SENT_AT + 120_000 });
    expect(fallbackDecision(unknown, otp, SENT_AT + 120_000)).toMatchObject({ kind: 'fall-back', trigger: 'no-evidence' });
  });

  it('never falls back on a delivered row, even after the window', () => {
    expect(fallbackDecision(row({ state: 'SENT', deliveryStatus: 'TEXT_DELIVERED' }), otp, SENT_AT + 10_000_000)).toEqual({ kind: 'none', why: 'delivered' });
  });

  it('leaves a pending row to its settling write', () => {
    expect(fallbackDecision(row({ state: 'PENDING' }), otp, SENT_AT + 10_000_000)).toEqual({ kind: 'none', why: 'pending' });
  });
});
