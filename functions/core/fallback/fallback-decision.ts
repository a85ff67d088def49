import type { FallbackPolicy } from '../policy/message-class';
import { primaryVerdict, type VerdictRow } from './primary-verdict';

/** Why a fallback goes: its primary certainly did not arrive, or (a class's exception) showed no evidence in time. */
export type FallbackTrigger = 'certainly-undelivered' | 'no-evidence';

/**
 * What to do about a row's fallback:
 * - `fall-back`: send the next channel now (its own claim makes it once, whoever asks);
 * - `check-at`: the class falls back without evidence, and its window ends at `atMs`: decide again then;
 * - `none`: not now and not for this write; `why` says which of the facts it is.
 */
export type FallbackDecision =
  | { readonly kind: 'fall-back'; readonly trigger: FallbackTrigger; readonly reason: string }
  | { readonly kind: 'check-at'; readonly atMs: number }
  | { readonly kind: 'none'; readonly why: NoFallback };

export type NoFallback = 'pending' | 'delivered' | 'possibly-delivered' | 'kept-from-fallback' | 'class-never-falls-back';

/**
 * The fallback decision on a primary's row, its class's setting and the time (epoch ms). Pure. The only path that
 * sends without a certain verdict is the class's `withoutEvidenceSeconds`, counted from when the row settled, and
 * only while no provider word said delivered; a row still PENDING is decided again by its settling write.
 */
export function fallbackDecision(row: VerdictRow, policy: FallbackPolicy, nowMs: number): FallbackDecision {
  if (!policy.enabled) return { kind: 'none', why: 'class-never-falls-back' };
  const verdict = primaryVerdict(row);
  switch (verdict.kind) {
    case 'certainly-undelivered':
      return { kind: 'fall-back', trigger: 'certainly-undelivered', reason: verdict.reason };
    case 'possibly-delivered': {
      if (policy.withoutEvidenceSeconds === undefined) return { kind: 'none', why: 'possibly-delivered' };
      const atMs = verdict.sentAtMs + policy.withoutEvidenceSeconds * 1000;
      return nowMs >= atMs
        ? { kind: 'fall-back', trigger: 'no-evidence', reason: `NoDeliveryEvidence: none within ${policy.withoutEvidenceSeconds} s` }
        : { kind: 'check-at', atMs };
    }
    case 'delivered':
      return { kind: 'none', why: 'delivered' };
    case 'kept-from-fallback':
      return { kind: 'none', why: 'kept-from-fallback' };
    case 'pending':
      return { kind: 'none', why: 'pending' };
  }
}
