/**
 * The AWS defaults the capacity model and the synth-time scale check hold a configuration against, each with
 * where AWS states it (read 2026; docs/scale.md lists them with the links). Account quotas can be raised: these are
 * the defaults a new account starts with, which is why the scale check names them rather than assuming them raised.
 */
export const AWS_DEFAULTS = {
  /** Lambda, concurrent executions per account and Region (Lambda Developer Guide, "Lambda quotas"; adjustable). */
  lambdaAccountConcurrency: 1000,
  /** Lambda, concurrency scaling rate per function: 1,000 execution environments every 10 seconds ("Lambda scaling behavior"). */
  lambdaScalingPerTenSeconds: 1000,
  /** SQS event source: most batches one mapping processes at once, also the most `MaximumConcurrency` takes ("Configuring scaling behavior for SQS event source mappings"). */
  sqsEventSourceMaxConcurrency: 1000,
  /** SQS event source: instances it adds per minute while messages wait, after starting with 5 ("Configuring scaling behavior for SQS event source mappings"). */
  sqsEventSourceScaleUpPerMinute: 300,
  sqsEventSourceInitialConcurrency: 5,
  /** SQS event source: records per batch, a standard queue (10 without a batching window; "Lambda parameters for Amazon SQS event source mappings"). */
  sqsEventSourceMaxBatchSize: 10_000,
  /** SQS standard queue: messages in flight, received and not deleted ("Amazon SQS standard queue quotas"; about 120,000). */
  sqsInFlightMessages: 120_000,
  /** DynamoDB on-demand: read and write request units per second per table, the account's default quota ("DynamoDB maximum throughput for on-demand tables"). */
  dynamoTableWriteUnitsPerSecond: 40_000,
  dynamoTableReadUnitsPerSecond: 40_000,
  /** DynamoDB on-demand: a new table's warm throughput ("Understanding DynamoDB warm throughput in different scenarios"). */
  dynamoNewTableWarmWriteUnitsPerSecond: 4_000,
  dynamoNewTableWarmReadUnitsPerSecond: 12_000,
  /** AWS SDK for JavaScript v3: sockets per origin its HTTP handler opens unless given an agent ("Configure maxSockets in Node.js"). */
  sdkMaxSockets: 50,
} as const;
