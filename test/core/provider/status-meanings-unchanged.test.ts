import { describe, expect, it } from 'vitest';
import { primaryVerdict, type PrimaryVerdict, type VerdictRow } from '../../../functions/core/fallback/primary-verdict';
import type { LedgerRow, LedgerState } from '../../../functions/core/ledger/ledger-record';
import { PROVIDER_OUTCOME_STATUSES, visibleOutcome } from '../../../functions/core/outcome/outcome-state';
import { STATUS_MEANINGS, statusProof } from '../../../functions/core/provider/delivery-status-meaning';
import { deliveryStatusRank } from '../../../functions/core/provider/delivery-status';

/**
 * What every status meant on 2026-12-06, when its meaning was spread over three tables (STATUS_MEANINGS,
 * primary-verdict.ts's hardFailure / CONTENT_OR_RULE_BLOCKS / DELIVERED_STATUSES, outcome-state.ts's
 * PROVIDER_OUTCOME), written out by hand from those tables. Folding them into one table must change none of it.
 * - `verdict`: primaryVerdict's kind on a SENT row whose final word on its only attempt is the status;
 * - `permanent`: the same with a detail that starts with `Permanent` (only a bounce reads it);
 * - `outcome`: what a producer hears of it on a SENT or UNKNOWN row.
 * Changed on purpose since, each by a defect whose test is test/core/outcome/outcome-delivery-facts.test.ts (the
 * rest is still as the three tables gave it):
 * - `Reject`, `RenderingFailure`: BOUNCED (were no outcome): a final refusal of a message SES had accepted, certainly
 *   undelivered, as End User Messaging's TEXT_INVALID_MESSAGE and TEXT_PROTECT_BLOCKED were already;
 * - `Subscription`, `TEXT_SUCCESSFUL`: DELIVERED (were no outcome): a fallback already read them as delivered, and
 *   AWS's pages say so (SUBSCRIPTION "was successfully delivered", TEXT_SUCCESSFUL and TEXT_DELIVERED "may be used
 *   interchangeably");
 * - `TEXT_UNKNOWN`: BOUNCED (was no outcome), as the equally uncertain SNS FAILURE is; the event's `delivery` says
 *   possibly delivered for both.
 * - an SES `Bounce` by its subtype too (`bySubtype`), after an AWS-docs review: a transient `MailboxFull` is certainly
 *   undelivered (was possibly delivered), a transient bounce of the message itself (`MessageTooLarge`,
 *   `ContentRejected`, `AttachmentRejected`) is kept from fallback (was possibly delivered); a transient `General`
 *   (often an out-of-office reply) and an `Undetermined` one stay possibly delivered. Its test is
 *   test/core/fallback/fallback-decision.test.ts ("reads an SES bounce by its type and subtype").
 */
type Kind = 'delivered' | 'certainly-undelivered' | 'kept-from-fallback' | 'possibly-delivered';
interface Meant {
  readonly proves: 'sent' | 'accepted' | 'not-sent';
  readonly rank: number;
  readonly verdict: Kind;
  readonly permanent?: Kind;
  /** Transient subtypes read apart from `verdict` (only a bounce has them). */
  readonly bySubtype?: Readonly<Record<string, Kind>>;
  readonly outcome?: 'DELIVERED' | 'BOUNCED' | 'COMPLAINED';
}
const P = 'possibly-delivered';
const D = 'delivered';
const U = 'certainly-undelivered';
const K = 'kept-from-fallback';
const MEANT: Readonly<Record<string, Meant>> = {
  Send: { proves: 'accepted', rank: 1, verdict: P },
  DeliveryDelay: { proves: 'sent', rank: 2, verdict: P },
  Delivery: { proves: 'sent', rank: 3, verdict: D, outcome: 'DELIVERED' },
  Bounce: {
    proves: 'sent',
    rank: 4,
    verdict: P,
    permanent: U,
    bySubtype: { 'Transient/MailboxFull': U, 'Transient/MessageTooLarge': K, 'Transient/ContentRejected': K, 'Transient/AttachmentRejected': K },
    outcome: 'BOUNCED',
  },
  Reject: { proves: 'not-sent', rank: 4, verdict: K, outcome: 'BOUNCED' },
  RenderingFailure: { proves: 'not-sent', rank: 4, verdict: K, outcome: 'BOUNCED' },
  Complaint: { proves: 'sent', rank: 5, verdict: D, outcome: 'COMPLAINED' },
  Subscription: { proves: 'sent', rank: 5, verdict: D, outcome: 'DELIVERED' },
  Open: { proves: 'sent', rank: 6, verdict: D, outcome: 'DELIVERED' },
  Click: { proves: 'sent', rank: 7, verdict: D, outcome: 'DELIVERED' },
  SUCCESS: { proves: 'sent', rank: 3, verdict: D, outcome: 'DELIVERED' },
  FAILURE: { proves: 'sent', rank: 4, verdict: P, outcome: 'BOUNCED' },
  TEXT_QUEUED: { proves: 'accepted', rank: 1, verdict: P },
  TEXT_PENDING: { proves: 'accepted', rank: 2, verdict: P },
  TEXT_SUCCESSFUL: { proves: 'sent', rank: 3, verdict: D, outcome: 'DELIVERED' },
  TEXT_DELIVERED: { proves: 'sent', rank: 3, verdict: D, outcome: 'DELIVERED' },
  TEXT_BLOCKED: { proves: 'sent', rank: 4, verdict: U, outcome: 'BOUNCED' },
  TEXT_CARRIER_BLOCKED: { proves: 'sent', rank: 4, verdict: K, outcome: 'BOUNCED' },
  TEXT_SPAM: { proves: 'sent', rank: 4, verdict: K, outcome: 'BOUNCED' },
  TEXT_UNREACHABLE: { proves: 'sent', rank: 4, verdict: U, outcome: 'BOUNCED' },
  TEXT_CARRIER_UNREACHABLE: { proves: 'sent', rank: 4, verdict: P, outcome: 'BOUNCED' },
  TEXT_UNKNOWN: { proves: 'sent', rank: 4, verdict: P, outcome: 'BOUNCED' },
  TEXT_INVALID: { proves: 'not-sent', rank: 4, verdict: U, outcome: 'BOUNCED' },
  TEXT_INVALID_MESSAGE: { proves: 'not-sent', rank: 4, verdict: K, outcome: 'BOUNCED' },
  TEXT_PROTECT_BLOCKED: { proves: 'not-sent', rank: 4, verdict: K, outcome: 'BOUNCED' },
  TEXT_TTL_EXPIRED: { proves: 'not-sent', rank: 4, verdict: U, outcome: 'BOUNCED' },
};
/** Values no table knows (never recorded: the status Lambda counts them invalid), read as nothing by all three. */
const UNKNOWN_STATUSES = ['Bogus', 'TEXT_SENT', 'TEXT_MESSAGE_MONTHLY_SPEND_LIMIT', 'delivery', 'BOUNCE', 'Permanent', ''];
const DETAILS = [
  undefined,
  'Permanent/General',
  'Permanent',
  'Transient/MailboxFull',
  'Transient/General',
  'Transient/MessageTooLarge',
  'Transient/ContentRejected',
  'Transient/AttachmentRejected',
  'Undetermined/Undetermined',
  'permanent/General',
];

const AT = 1_000_000;
const row = (state: LedgerState, status: string, fields: Partial<LedgerRow> = {}): LedgerRow =>
  ({ key: 'k'.repeat(64), state, createdAt: AT - 10, updatedAt: AT, resolvedAt: AT, deliveryStatus: status, deliveryStatusAt: AT + 5, ...fields }) as LedgerRow;

function expectedVerdict(status: string, kind: Kind, detail: string | undefined): PrimaryVerdict {
  const reason = detail ? `${status}: ${detail}` : status;
  switch (kind) {
    case 'delivered':
      return { kind, status };
    case 'certainly-undelivered':
      return { kind, cause: 'hard-failure', reason };
    case 'kept-from-fallback':
      return { kind, reason };
    case 'possibly-delivered':
      return { kind, sentAtMs: AT };
  }
}

describe("every status's meaning as the three tables gave it before they became one, but for the changes named above", () => {
  it('lists exactly the statuses the ledger records, each with what it proves and its rank', () => {
    expect(Object.keys(STATUS_MEANINGS).sort()).toEqual(Object.keys(MEANT).sort());
    for (const [status, meant] of Object.entries(MEANT)) {
      expect({ proves: statusProof(status), rank: deliveryStatusRank(status) }, status).toEqual({ proves: meant.proves, rank: meant.rank });
    }
    for (const status of UNKNOWN_STATUSES) expect({ proves: statusProof(status), rank: deliveryStatusRank(status) }, status).toEqual({ proves: 'nothing', rank: 0 });
  });

  it("gives each status, with each detail, the fallback verdict it had on a SENT or UNKNOWN row's final word on its only attempt", () => {
    for (const state of ['SENT', 'UNKNOWN'] as const) {
      for (const [status, meant] of Object.entries(MEANT)) {
        for (const detail of DETAILS) {
          const kind = (detail === undefined ? undefined : meant.bySubtype?.[detail]) ?? (detail?.startsWith('Permanent') && meant.permanent ? meant.permanent : meant.verdict);
          const input = row(state, status, detail ? { deliveryStatusDetail: detail } : {});
          expect(primaryVerdict(input as VerdictRow), `${state} ${status} ${detail}`).toEqual(expectedVerdict(status, kind, detail));
        }
      }
      for (const status of UNKNOWN_STATUSES) {
        for (const detail of DETAILS) {
          const input = row(state, status, detail ? { deliveryStatusDetail: detail } : {});
          expect(primaryVerdict(input as VerdictRow), `${state} ${status} ${detail}`).toEqual(expectedVerdict(status, P, detail));
        }
      }
    }
  });

  it('reads a delivered status as delivered on any row, and nothing else as certain when the word is not final or not alone', () => {
    for (const status of [...Object.keys(MEANT), ...UNKNOWN_STATUSES]) {
      const delivered = MEANT[status]?.verdict === D;
      const detail = { deliveryStatusDetail: 'Permanent/General' };
      const notFinal = primaryVerdict(row('SENT', status, { ...detail, deliveryStatusIntermediate: true }) as VerdictRow);
      const notAlone = primaryVerdict(row('UNKNOWN', status, { ...detail, lastAmbiguousAt: AT - 1 }) as VerdictRow);
      const pending = primaryVerdict(row('PENDING', status, detail) as VerdictRow);
      const failed = primaryVerdict(row('FAILED', status, { failureReason: 'TemplateNotFound: x' }) as VerdictRow);
      expect(notFinal, status).toEqual(delivered ? { kind: D, status } : { kind: P, sentAtMs: AT });
      expect(notAlone, status).toEqual(delivered ? { kind: D, status } : { kind: P, sentAtMs: AT });
      expect(pending, status).toEqual(delivered ? { kind: D, status } : { kind: 'pending' });
      expect(failed, status).toEqual(delivered ? { kind: D, status } : { kind: K, reason: 'TemplateNotFound: x' });
    }
  });

  it('gives a producer the outcome each status had: on SENT and UNKNOWN rows, a bounce only when final, never on FAILED', () => {
    for (const status of [...Object.keys(MEANT), ...UNKNOWN_STATUSES]) {
      const outcome = MEANT[status]?.outcome;
      for (const state of ['SENT', 'UNKNOWN'] as const) {
        for (const intermediate of [undefined, true] as const) {
          const seen = visibleOutcome(row(state, status, intermediate === undefined ? {} : { deliveryStatusIntermediate: intermediate }));
          const heard = outcome !== undefined && !(outcome === 'BOUNCED' && intermediate === true);
          expect(seen, `${state} ${status} ${intermediate}`).toEqual(heard ? { state: outcome, source: 'provider', stateAtMs: AT + 5 } : { state, source: 'ledger', stateAtMs: AT });
        }
      }
      expect(visibleOutcome(row('FAILED', status)), status).toEqual({ state: 'FAILED', source: 'ledger', stateAtMs: AT });
    }
  });

  it("lets through the stream filter exactly the statuses with an outcome (in any order)", () => {
    const withOutcome = Object.entries(MEANT).filter(([, meant]) => meant.outcome !== undefined).map(([status]) => status);
    expect([...PROVIDER_OUTCOME_STATUSES].sort()).toEqual(withOutcome.sort());
  });
});
