import { PROVIDER_OUTCOME_STATUSES } from '../functions/core/outcome/outcome-state';

/**
 * The event source mapping's filter patterns on the ledger's stream: the writes that may be a producer-visible
 * state change, so that the publisher is never invoked for a claim, a takeover, a release, a limit counter, a
 * consent record, a removal or a status on a row still `PENDING` (Lambda drops a record no pattern matches, at
 * no charge; "Control which events Lambda sends to your function": up to five patterns, ORed, and a DynamoDB
 * mapping filters on the `dynamodb` key only, https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html).
 * The publisher still decides each record with both images (outcome-state.ts); these patterns only have to let
 * through every write it could publish, which `test/local/outcome-stream-filter.test.ts` checks:
 * 1. a row settles (from `PENDING`);
 * 2. the ledger's state moves on from a settled state: only `SUPPRESSED` does (the status Lambda's
 *    `suppressAfterAcceptance`, from `SENT`); no writer moves a settled row to another settled state;
 * 3. the provider's word on a row that was or may have been sent.
 * The local event source mapping applies the same patterns.
 */
export const OUTCOME_STREAM_FILTERS: readonly Readonly<Record<string, unknown>>[] = [
  { dynamodb: { OldImage: { state: { S: ['PENDING'] } }, NewImage: { state: { S: ['SENT', 'FAILED', 'UNKNOWN', 'SUPPRESSED'] } } } },
  { dynamodb: { OldImage: { state: { S: ['SENT', 'FAILED', 'UNKNOWN'] } }, NewImage: { state: { S: ['SUPPRESSED'] } } } },
  { dynamodb: { NewImage: { state: { S: ['SENT', 'UNKNOWN'] }, deliveryStatus: { S: [...PROVIDER_OUTCOME_STATUSES] } } } },
];
