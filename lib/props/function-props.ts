import type { Duration } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { NotifierRuntime } from '../lambda-runtime';
import type { SendRates, ThrottleBackoff } from '../send-pace';

/**
 * The functions: runtime, timeout, memory, the sender's event source, concurrency and pace, its entry and
 * templates. Resolved by `resolveSettings` (lib/notifier-settings.ts); pace by lib/send-pace.ts.
 */
export interface FunctionProps {
  /**
   * The Lambda runtime of every function in the stack (the sender, reclaimer and status functions and the
   * account-setting calls), and the esbuild target their bundles are built for. `nodejs22.x` is for a team that
   * must stay on Node.js 22 for a while; its end of life is 30 April 2027.
   * @default 'nodejs24.x'
   */
  readonly lambdaRuntime?: NotifierRuntime;
  /**
   * Timeout of the sender, reclaimer and status functions.
   * @default Duration.seconds(30)
   */
  readonly functionTimeout?: Duration;
  /**
   * Memory of the sender, reclaimer and status functions, in MB.
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * SQS records per invocation.
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * How long the event source waits to fill a batch.
   * @default - no batching window
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Most concurrent sender invocations the SQS event source starts (2-1000); bounds provider rate. With lanes,
   * the bulk lane's (the urgent lane's is `lanes.urgentMaxConcurrency`). With `sendRates` stated, synth refuses a value
   * whose instances cannot deliver the lane's part of them, naming the least that does (docs/scale.md).
   * @default 10
   */
  readonly maxConcurrency?: number;
  /**
   * Concurrency reserved for the sender: guarantees it `maxConcurrency` instances whatever else runs in the account
   * (and caps it there). Must be at least `maxConcurrency`, or the event source's invocations are throttled and
   * records spend their receives.
   * @default - none reserved: the sender shares the account's unreserved concurrency
   */
  readonly senderReservedConcurrency?: number;
  /**
   * Concurrency reserved for the status function, which then is also its hard bound: Lambda invokes it once per SES
   * event (and per SMS log batch), asynchronously, so a burst beyond it is queued and retried (for up to 6 hours).
   * Opt-in: reserving needs an account concurrency quota of at least 100 + the sum of all reservations, and a new
   * account's quota (10, or 50) cannot give any, so the deploy would fail ("decreases account's
   * UnreservedConcurrentExecution below its minimum value"). Without it, the status path is capped where a cap cannot
   * fail a deploy: each of its SQS event sources' `statusMaxConcurrency` (SES events, End User Messaging events).
   * @default - none reserved: the status function shares the account's unreserved concurrency
   */
  readonly statusReservedConcurrency?: number;
  /**
   * Most concurrent status invocations each of the status function's SQS event sources starts (2-1000): the SES events
   * queue, and the End User Messaging SMS events queue (`smsProvider: 'end-user-messaging'`). Together they fit in
   * `statusReservedConcurrency` when that is given (this times the number of sources is at most the reservation), as a
   * sender's `maxConcurrency` stays within its reservation: an event source does not know a function's reservation, and
   * the batches Lambda throttles spend their receives toward the dead-letter queue.
   * @default 5, or `statusReservedConcurrency` shared among the sources when that is lower
   */
  readonly statusMaxConcurrency?: number;
  /**
   * Provider calls in flight within one invocation: at most 50, the sockets the AWS SDK opens per endpoint (a request
   * waiting for one counts against the ledger client's connection timeout), and at least 32 MB of `memorySize` each.
   * @default 16
   */
  readonly maxConcurrentSends?: number;
  /**
   * Account-wide send rates per channel (sends per second). The senders and the reclaimer pace provider
   * calls to them, each process at its share: without lanes `maxConcurrency` + 1 shares; with lanes the urgent
   * lane's `urgentMaxConcurrency` + 1 shares of the whole rate (the reclaimer holds one), the bulk lane's
   * `maxConcurrency` shares of `bulkRateShare` of it. A message without a slot
   * before its invocation ends is deferred unsent (`RateLimitedDeferral`) and its record backed off.
   * @default - e-mail: SES `MaxSendRate`, read with `GetAccount` at cold start; SMS and push: not paced
   */
  readonly sendRates?: SendRates;
  /**
   * Visibility backoff of records the providers throttled or the rate limit deferred (whole seconds); with lanes,
   * the urgent lane starts from `lanes.urgentThrottleBackoffBase` instead of `base`.
   * Synth checks that a message throttled for 24 hours still has receives left before the
   * dead-letter queue (`maxReceiveCount`) and that the longest backoff ends within the queue retention.
   * @default - base 10 s, cap 40 min
   */
  readonly throttleBackoff?: ThrottleBackoff;
  /**
   * Largest accepted SQS body in bytes; larger events are dead-lettered.
   * @default 65536
   */
  readonly maxBodyBytes?: number;
  /**
   * Dead-letter an event that carries a field the event schema does not know (reason `UnknownField`), instead of
   * ignoring the field. Either way each unknown field is counted (`UnknownEventField`, by name) and logged. Off, a
   * producer that sends a field the schema learns later keeps working.
   * @default false
   */
  readonly refuseUnknownEventFields?: boolean;
  /**
   * Retention of the functions' log groups.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Entry file of the sender handler (exports `handler`).
   * @default - `functions/sender/handler.ts` of this repository
   */
  readonly senderEntry?: string;
  /**
   * Folder of template files (`<templateId>.json`, and each translation as `<templateId>/<locale>.json`) the sender
   * renders. Synth validates every file (placeholders declared, SMS parts, subject length, push payload size, no
   * unescaped HTML, every variant with the default's channels and fields) and fails listing every problem; the files
   * are embedded in the sender's bundle as checked, and read at cold start without checking them again.
   * @default - the `templates/` folder of this package
   */
  readonly templatesDir?: string;
}
