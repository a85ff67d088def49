import { fallbackDecision } from '../functions/core/fallback/fallback-decision';
import { primaryVerdict } from '../functions/core/fallback/primary-verdict';
import type { LedgerRow } from '../functions/core/ledger/ledger-record';
import type { FallbackPolicy } from '../functions/core/policy/message-class';

/**
 * Channel fallback in a wire run, judged at its end from the ledger's final rows and the providers' own counts.
 * Each primary (a row that names a next message, `fallbackKey`) is judged by the product's own rules
 * (functions/core/fallback/): its verdict (`primaryVerdict`) and what its class says (`fallbackDecision`).
 */
export interface WireFallbackReport {
  /** Rows that name a next channel (a recipient's `fallback` list, each step but the last). */
  readonly primaries: number;
  /** Fallback messages some provider accepted. */
  readonly sent: number;
  /** Fallbacks that went out while their primary was possibly or certainly delivered, outside the class exception. Must be 0. */
  readonly whilePossiblyDelivered: number;
  /** Fallbacks of a class that falls back without evidence (`FallbackWithoutEvidence`) whose primary was possibly or certainly delivered: allowed, counted apart. */
  readonly withoutEvidence: number;
  /** Primaries the rules say must fall back whose fallback never got a ledger row (never claimed). Must be 0. */
  readonly undeliveredWithoutFallback: number;
  /** Extra accepted sends of fallback messages that no lost answer, kill or counted resend explains. Must be 0. */
  readonly duplicates: number;
  /** Extra accepted sends of fallback messages explained as the verdict explains them (an answer lost, a kill). */
  readonly explainedDuplicates: number;
  /** Up to 5 keys (of the primary) of each kind of violation. */
  readonly examples: Readonly<Record<'whilePossiblyDelivered' | 'undeliveredWithoutFallback' | 'duplicate', readonly string[]>>;
}

export interface WireFallbackInput {
  /** The ledger's final rows by key. */
  readonly rows: ReadonlyMap<string, LedgerRow>;
  /** Sends each provider accepted, by key. */
  readonly acceptedPerKey: ReadonlyMap<string, number>;
  /** A class's fallback policy, as the stack configures it. */
  readonly policyOf: (messageClass: string) => FallbackPolicy;
  /** When the run was judged (epoch ms). */
  readonly nowMs: number;
  /** The wire verdict's duplicate figures for these fallback keys (the same explanations as every other message's). */
  readonly duplicatesOf: (keys: readonly string[]) => { readonly unexplained: number; readonly explained: number; readonly examples: readonly string[] };
}

/** Judges the run's fallbacks. Pure. */
export function judgeWireFallbacks(input: WireFallbackInput): WireFallbackReport {
  const examples = { whilePossiblyDelivered: [] as string[], undeliveredWithoutFallback: [] as string[], duplicate: [] as string[] };
  const note = (kind: keyof typeof examples, key: string) => {
    if (examples[kind].length < 5) examples[kind].push(key);
  };
  let primaries = 0;
  let sent = 0;
  let whilePossiblyDelivered = 0;
  let withoutEvidence = 0;
  let undeliveredWithoutFallback = 0;
  const fallbackKeys: string[] = [];
  for (const row of input.rows.values()) {
    if (row.fallbackKey === undefined) continue;
    primaries += 1;
    const policy = input.policyOf(row.messageClass);
    const decision = fallbackDecision(row, policy, input.nowMs);
    const fallbackRow = input.rows.get(row.fallbackKey);
    if (fallbackRow) fallbackKeys.push(row.fallbackKey);
    const accepted = input.acceptedPerKey.get(row.fallbackKey) ?? 0;
    if (accepted > 0) {
      sent += 1;
      const verdict = primaryVerdict(row).kind;
      if (verdict === 'possibly-delivered' || verdict === 'delivered') {
        // The class's exception: it may fall back without evidence (and its primary may prove delivered after).
        if (policy.enabled && policy.withoutEvidenceSeconds !== undefined) withoutEvidence += 1;
        else {
          whilePossiblyDelivered += 1;
          note('whilePossiblyDelivered', row.key);
        }
      } else if (verdict !== 'certainly-undelivered') {
        whilePossiblyDelivered += 1;
        note('whilePossiblyDelivered', row.key);
      }
    }
    if (decision.kind === 'fall-back' && !fallbackRow) {
      undeliveredWithoutFallback += 1;
      note('undeliveredWithoutFallback', row.key);
    }
  }
  const duplicates = input.duplicatesOf(fallbackKeys);
  for (const key of duplicates.examples) note('duplicate', key);
  return {
    primaries,
    sent,
    whilePossiblyDelivered,
    withoutEvidence,
    undeliveredWithoutFallback,
    duplicates: duplicates.unexplained,
    explainedDuplicates: duplicates.explained,
    examples,
  };
}

/** The zeros hold: no fallback while the primary may have arrived (outside the class exception), none missing, none twice. */
export function wireFallbacksHold(report: Pick<WireFallbackReport, 'whilePossiblyDelivered' | 'undeliveredWithoutFallback' | 'duplicates'>): boolean {
  return report.whilePossiblyDelivered === 0 && report.undeliveredWithoutFallback === 0 && report.duplicates === 0;
}
