import { textTable } from './text-table';
import { wireFallbacksHold, type WireFallbackReport } from './wire-fallback-report';

/** The wire run's channel fallback section: what went, and the three zeros, each with up to 5 example keys when broken. */
export function formatWireFallbacks(report: WireFallbackReport): string {
  const table = textTable(
    ['channel fallback (the ledger\'s stream -> the trigger -> the senders\' queues)', 'value'],
    [
      ['primaries that name a next channel', report.primaries],
      ['fallbacks sent (accepted by a provider)', report.sent],
      ['fallbacks while the primary was possibly or certainly delivered (must be 0)', report.whilePossiblyDelivered],
      ['  the class exception apart: fallbacks without evidence (FallbackWithoutEvidence)', report.withoutEvidence],
      ['certainly undelivered primaries whose fallback never went (must be 0)', report.undeliveredWithoutFallback],
      ['duplicate fallbacks: extra accepted sends unexplained (must be 0)', report.duplicates],
      ['  explained as every message\'s are (an answer lost, a kill; counted)', report.explainedDuplicates],
    ],
  );
  const verdict = wireFallbacksHold(report)
    ? 'FALLBACK HOLDS: none while the primary may have arrived (beyond the class exception), none missing, none twice.'
    : `FALLBACK BROKEN: examples (primary keys) ${JSON.stringify(report.examples)}`;
  return `${table}\n${verdict}`;
}
