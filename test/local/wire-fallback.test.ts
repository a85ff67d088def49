import { describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { ledgerRowOfImage, type StreamImage } from '../../functions/adapters/ledger-stream-image';
import { primaryVerdict } from '../../functions/core/fallback/primary-verdict';
import { wireFaults } from '../../local/aws/wire-fault-plan';
import { wireFallbacksHold } from '../../local/wire-fallback-report';
import { runWireSimulation, wireRunHolds } from '../../local/wire-simulation';
import { formatWireReport } from '../../local/wire-simulation-report';

/** The primary's key when this write settles it certainly undelivered (the product's own verdict), else undefined. */
function refusedPrimary(record: DynamoDBRecord): string | undefined {
  const after = ledgerRowOfImage(record.dynamodb?.NewImage as StreamImage | undefined);
  if (after?.fallbackKey === undefined) return undefined;
  return primaryVerdict(after).kind === 'certainly-undelivered' ? after.key : undefined;
}

const keyOfRecord = (record: DynamoDBRecord) => ledgerRowOfImage(record.dynamodb?.NewImage as StreamImage | undefined)?.key;

describe('simulate --wire: channel fallback under the run\'s faults', () => {
  it(
    'recipients with a fallback list, primaries refused at the providers: each certainly undelivered primary\'s fallback sent once, none while the primary may have arrived (beyond the otp exception)',
    async () => {
      const report = await runWireSimulation({ events: 120, seed: 6, faults: { ...wireFaults(0.02), providerRejection: 0.15 } });
      const fallback = report.fallback;
      // Seed 6 drew 13 primaries: 5 fallbacks sent, 4 of them otp codes without evidence (the class exception), counted
      // before SNS's delivery logs reached the wire run's ledger (local/wire-sms-delivery-logs.ts): fewer texts' now.
      expect(fallback.primaries).toBeGreaterThan(5);
      expect(fallback.sent - fallback.withoutEvidence).toBeGreaterThan(0);
      expect(fallback.whilePossiblyDelivered, JSON.stringify(fallback.examples)).toBe(0);
      expect(fallback.undeliveredWithoutFallback, JSON.stringify(fallback.examples)).toBe(0);
      expect(fallback.duplicates, JSON.stringify(fallback.examples)).toBe(0);
      expect(wireFallbacksHold(fallback)).toBe(true);
      expect(wireRunHolds(report)).toBe(true);
      expect(formatWireReport(report)).toContain('FALLBACK HOLDS');
    },
    300_000,
  );

  it(
    'fails the run (simulate --wire exits 1) when a certainly undelivered primary\'s fallback never goes: a trigger that drops one primary\'s requests',
    async () => {
      let droppedKey: string | undefined;
      const report = await runWireSimulation({
        // The first test's run: it has certainly undelivered primaries.
        events: 120,
        seed: 6,
        faults: { ...wireFaults(0.02), providerRejection: 0.15 },
        wrapFallbackTrigger: (trigger) => (event, context) => {
          // The first primary settled refused, and every later record of it (a retried batch reads it again).
          droppedKey ??= event.Records.map(refusedPrimary).find((key) => key !== undefined);
          const kept = event.Records.filter((record) => droppedKey === undefined || keyOfRecord(record) !== droppedKey);
          return trigger({ Records: kept }, context);
        },
      });
      expect(droppedKey).toBeDefined();
      expect(report.fallback.undeliveredWithoutFallback).toBeGreaterThanOrEqual(1);
      expect(report.fallback.examples.undeliveredWithoutFallback).toContain(droppedKey);
      expect(wireFallbacksHold(report.fallback)).toBe(false);
      expect(wireRunHolds(report)).toBe(false);
      expect(formatWireReport(report)).toContain('FALLBACK BROKEN');
    },
    300_000,
  );
});
