import { PRICES } from '../cost-model';
import { SQS_PRICES } from '../latency/lambda-bill';

/**
 * us-east-1 list prices the cost table of docs/scale.md uses, USD, as the sources below quote them (read December 2026;
 * prices change: check the pricing pages before relying on them). Lambda and DynamoDB are the benches' own
 * (bench/cost-model.ts), SQS the latency bench's (bench/latency/lambda-bill.ts).
 */
export const LIST_PRICES = {
  read: 'December 2026',
  lambdaGbSecondArm64: PRICES.lambdaGbSecondArm64,
  lambdaRequestPerMillion: PRICES.lambdaRequestPerMillion,
  dynamoWriteUnitPerMillion: PRICES.dynamoWriteRequestUnitPerMillion,
  dynamoReadUnitPerMillion: PRICES.dynamoReadRequestUnitPerMillion,
  sqsRequestPerMillion: SQS_PRICES.requestPerMillion,
  /** SNS standard topic, per million publishes (the lanes' event topic; SNS charges nothing to deliver to SQS). */
  snsPublishPerMillion: 0.5,
  /** SNS mobile push notifications, per million. */
  snsMobilePushPerMillion: 0.5,
  /** SES outbound e-mail: $0.10 per 1,000. */
  sesEmailPerMillion: 100,
  /**
   * End User Messaging SMS to Japan, all networks, transactional or promotional: $0.07451 per message part, as the AWS
   * pricing page showed it on 2026-05-18 (the one dated per-part list price the sources held; no US figure was found).
   * SMS is priced per part and destination country, plus carrier fees in some countries (the US among them).
   */
  smsJapanPerPartPerMillion: 74_510,
  /** CloudWatch Logs, Standard class ingestion (the first tier of Lambda's tiered log pricing since May 2025), per GB. */
  logsIngestionPerGb: 0.5,
  /** CloudWatch Logs data protection (the stack's log groups mask phone numbers and addresses), per GB scanned. */
  logsDataProtectionPerGb: 0.12,
  /** EventBridge custom events put on a bus, per million (each 64 KB chunk an event): the outcome feed. */
  eventBridgeCustomEventPerMillion: 1,
} as const;

/** Where each price is stated, for the page. */
export const PRICE_SOURCES: readonly string[] = [
  'Lambda arm64 $0.0000133334 per GB-second and $0.20 per million requests; DynamoDB on-demand $0.625 per million write and $0.125 per million read request units (after the November 2024 reduction): aws.amazon.com/lambda/pricing, aws.amazon.com/dynamodb/pricing/on-demand (bench/cost-model.ts)',
  'SQS standard $0.40 per million requests, each 64 KB chunk a request: aws.amazon.com/sqs/pricing (bench/latency/lambda-bill.ts)',
  'SNS standard topic $0.50 per million publishes, mobile push $0.50 per million, deliveries to SQS free: aws.amazon.com/sns/pricing, as summarised by factualminds.com, "Amazon SNS Pricing: Why a Single Publish Can Bill as Four Charges" (2026)',
  'SES $0.10 per 1,000 outbound e-mails: aws.amazon.com/ses/pricing, as quoted by acecloudinterviews.com\'s SES tutorial',
  'SMS (SNS or End User Messaging SMS): a price per message part and destination country plus carrier fees, no single figure: aws.amazon.com/end-user-messaging/pricing; AWS knowledge center, "sns-pinpoint-high-sms-charges" (price x parts). Japan, all networks: $0.07451 per part, transactional or promotional, the AWS pricing page as quoted by dev.classmethod.jp, "AWS End User Messaging SMSで日本語メッセージを送る場合の料金を整理してみた" (2026-05-18). No dated US per-part price or US carrier fee from AWS was in the sources searched (December 2026)',
  'EventBridge custom events $1.00 per million put (each 64 KB chunk an event), EventBridge Pipes $0.40 per million requests after filtering: aws.amazon.com/eventbridge/pricing, as summarised by cloudburn.io, "Amazon EventBridge Pricing: Complete Guide" (March 2026) and blog.awsfundamentals.com, "AWS EventBridge pricing guide". DynamoDB Streams reads by a Lambda trigger are free: DynamoDB developer guide, "Evaluate your Streams usage" (CostOptimization_StreamsUsage.html)',
  'CloudWatch Logs $0.50 per GB ingested (Standard; the first tier of the tiered Lambda log pricing of May 2025), data protection $0.12 per GB scanned, storage $0.03 per GB-month: duckbillgroup.com on the May 2025 change; hykell.com, "AWS CloudWatch Logs pricing"',
];
