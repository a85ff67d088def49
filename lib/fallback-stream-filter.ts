import { OUTCOME_STREAM_FILTERS } from './outcome-stream-filter';

/**
 * The fallback trigger's filter patterns on the ledger's stream: the outcome publisher's (every write a producer could
 * hear of, which holds every write a fallback can follow: a settling, a later consent suppression, a provider's word),
 * each narrowed to rows that name a next channel (`fallbackKey` present, the exists operator: "Using the Exists
 * operator", https://docs.aws.amazon.com/lambda/latest/dg/with-ddb-filtering.html). Every other row's write is dropped
 * by Lambda before an invocation, at no charge, so a stack whose producers send no `fallback` lists runs the trigger
 * never. The trigger still decides each record with both images (functions/fallback/fallback-of-record.ts).
 */
export const FALLBACK_STREAM_FILTERS: readonly Readonly<Record<string, unknown>>[] = OUTCOME_STREAM_FILTERS.map((pattern) => {
  const dynamodb = pattern['dynamodb'] as { readonly NewImage?: Readonly<Record<string, unknown>> } & Readonly<Record<string, unknown>>;
  return { dynamodb: { ...dynamodb, NewImage: { ...dynamodb.NewImage, fallbackKey: { S: [{ exists: true }] } } } };
});
