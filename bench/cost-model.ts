/**
 * Price assumptions (us-east-1, list prices as published for 2025; check before relying on them):
 * DynamoDB on-demand after the November 2024 reduction, Lambda on arm64 as the stack deploys it.
 */
export const PRICES = {
  dynamoWriteRequestUnitPerMillion: 0.625,
  dynamoReadRequestUnitPerMillion: 0.125,
  lambdaGbSecondArm64: 0.0000133334,
  lambdaRequestPerMillion: 0.2,
  region: 'us-east-1',
} as const;

/**
 * Latency assumptions for the Lambda duration model: the local run's own durations reflect a
 * 2-core laptop running dynalite, not AWS, so billed time is modelled from request counts.
 */
export const LATENCY_MODEL = {
  dynamoRequestMs: 6,
  providerCallMs: 60,
  cpuPerMessageMs: 1.5,
  /** Deliveries in flight at once inside one invocation (MAX_CONCURRENT_SENDS default is 16; 4 is conservative). */
  overlap: 4,
  memoryMb: 512,
  /** Messages per invocation: batch size 10 x about 1.2 messages per event. */
  messagesPerInvocation: 12,
} as const;

/** Per-message inputs for the estimate, from the measured run. */
export interface CostInputs {
  /** Write request units per message, including GSI writes (AWS bills those; dynalite does not report them). */
  readonly writeUnitsPerMessage: number;
  readonly readUnitsPerMessage: number;
  readonly dynamoRequestsPerMessage: number;
  readonly providerCallsPerMessage: number;
}

export interface CostEstimate {
  readonly dynamoUsdPerMillion: number;
  readonly lambdaUsdPerMillion: number;
  readonly totalUsdPerMillion: number;
  readonly lambdaGbSecondsPerMillion: number;
  readonly billedMsPerMessage: number;
}

/** DynamoDB on-demand requests and Lambda GB-seconds per million messages (provider charges excluded). */
export function estimateCost(inputs: CostInputs): CostEstimate {
  const m = LATENCY_MODEL;
  const dynamo =
    inputs.writeUnitsPerMessage * PRICES.dynamoWriteRequestUnitPerMillion + inputs.readUnitsPerMessage * PRICES.dynamoReadRequestUnitPerMillion;
  const billedMsPerMessage =
    (inputs.dynamoRequestsPerMessage * m.dynamoRequestMs + inputs.providerCallsPerMessage * m.providerCallMs) / m.overlap + m.cpuPerMessageMs;
  const gbSeconds = ((billedMsPerMessage / 1000) * (m.memoryMb / 1024)) * 1_000_000;
  const lambda = gbSeconds * PRICES.lambdaGbSecondArm64 + (PRICES.lambdaRequestPerMillion * 1) / m.messagesPerInvocation;
  const r = (n: number) => Math.round(n * 100) / 100;
  return {
    dynamoUsdPerMillion: r(dynamo),
    lambdaUsdPerMillion: r(lambda),
    totalUsdPerMillion: r(dynamo + lambda),
    lambdaGbSecondsPerMillion: Math.round(gbSeconds),
    billedMsPerMessage: r(billedMsPerMessage),
  };
}

/** The assumptions as text, for the printed and written results. */
export function describeAssumptions(): string {
  const p = PRICES;
  const m = LATENCY_MODEL;
  return [
    `Prices (${p.region}): DynamoDB on-demand $${p.dynamoWriteRequestUnitPerMillion}/M write request units, $${p.dynamoReadRequestUnitPerMillion}/M read request units; ` +
      `Lambda arm64 $${p.lambdaGbSecondArm64}/GB-s and $${p.lambdaRequestPerMillion}/M requests. Provider (SES/SNS) charges are the same for every sender and left out.`,
    `DynamoDB units: 1 WRU per write request of an item up to 1 KB (failed conditions included), plus the GSI writes DynamoDB bills for the ledger's two ` +
      `keys-only indexes (pending claims the queue may not bring back; SMS message id), counted per successful write by local/gsi-write-model.ts ` +
      `(dynalite reports table units only); strongly consistent reads 1 RRU.`,
    `Lambda duration is modelled, not taken from this machine: ${m.dynamoRequestMs} ms per DynamoDB request, ${m.providerCallMs} ms per provider call, ` +
      `${m.overlap} deliveries overlapping per invocation, +${m.cpuPerMessageMs} ms CPU per message, ${m.memoryMb} MB, ${m.messagesPerInvocation} messages per invocation.`,
  ].join('\n');
}
