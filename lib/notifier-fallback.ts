import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ENV } from '../functions/core/sender-config';
import { FALLBACK_ENV, loadFallbackConfig } from '../functions/fallback/fallback-config';
import { buildMessageClassRegistry, DEFAULT_FALLBACK_POLICY } from '../functions/core/policy/message-class';
import { FALLBACK_STREAM_FILTERS } from './fallback-stream-filter';
import { consumeLedgerStream, streamFunctionOptions, type LedgerStreamFunctionProps } from './ledger-stream-consumer';
import { createNotifierFunction } from './notifier-function';

/** What {@link ChannelFallback} wires. */
export interface ChannelFallbackProps extends LedgerStreamFunctionProps {
  /** The sender lanes (one without lanes): a request goes to the queue of its class's lane. */
  readonly lanes: readonly { readonly name: string; readonly queue: sqs.IQueue }[];
  /** The urgent lane's sender environment: the trigger reads the classes (`MESSAGE_CLASSES`) as the sender does. */
  readonly senderEnvironment: Readonly<Record<string, string>>;
  /** The classes of the bulk lane. @default - none: every request goes to the urgent lane's queue */
  readonly bulkClasses?: readonly string[];
}

/**
 * Channel fallback's trigger: the ledger's stream, filtered to writes of rows that name a next channel
 * (lib/fallback-stream-filter.ts), through the trigger Lambda, which puts a request naming the primary's key on the
 * sender's queue of its lane (delayed by a class's window without evidence). The primary's own write is the
 * trigger: no crash between it and a second call can lose a fallback (docs/design/fallback.md).
 */
export class ChannelFallback extends Construct {
  public readonly fn: lambda.Function;
  public readonly logGroup: logs.LogGroup;
  /** Where the mapping parks a batch it gave up on (its place in the stream). */
  public readonly failedBatchQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: ChannelFallbackProps) {
    super(scope, id);
    const urgent = props.lanes.find((lane) => lane.name !== 'bulk')?.queue;
    if (!urgent) throw new Error('ChannelFallback: no urgent lane (or single queue) to send requests to');
    const messageClassesJson = props.senderEnvironment[ENV.messageClasses];
    // The bulk lane's queue only when one of its classes falls back (none by default: marketing never does). Its
    // grant would be unused otherwise, and the trigger never puts a request for a class that does not fall back.
    const classes = buildMessageClassRegistry(messageClassesJson);
    const bulkFallsBack = (props.bulkClasses ?? []).some((name) => (classes.get(name)?.fallback ?? DEFAULT_FALLBACK_POLICY).enabled);
    const bulk = bulkFallsBack ? props.lanes.find((lane) => lane.name === 'bulk')?.queue : undefined;
    const queues = { urgent, ...(bulk ? { bulk } : {}) };
    const environment: Record<string, string> = {
      [ENV.tableName]: props.table.tableName,
      [ENV.metricsNamespace]: props.metricsNamespace,
      [FALLBACK_ENV.urgentQueueUrl]: queues.urgent.queueUrl,
      ...(queues.bulk ? { [FALLBACK_ENV.bulkQueueUrl]: queues.bulk.queueUrl } : {}),
      ...(props.bulkClasses?.length ? { [FALLBACK_ENV.bulkClasses]: props.bulkClasses.join(',') } : {}),
      ...(messageClassesJson ? { [ENV.messageClasses]: messageClassesJson } : {}),
    };
    // At synth as at cold start: the class settings (fallback windows of at most 900 s) are the sender's own check.
    loadFallbackConfig({ ...environment, [ENV.tableName]: 'synth-table', [FALLBACK_ENV.urgentQueueUrl]: 'https://sqs.synth/q', ...(queues.bulk ? { [FALLBACK_ENV.bulkQueueUrl]: 'https://sqs.synth/b' } : {}) });
    const trigger = createNotifierFunction(this, 'Trigger', {
      ...streamFunctionOptions(props),
      description: 'Idempotent notification fallback: ledger stream -> a request for the next channel on the sender queue',
      environment,
    });
    this.fn = trigger.fn;
    this.logGroup = trigger.logGroup;

    // A request the queue did not take is retried, then parked, as the outcome feed's are.
    this.failedBatchQueue = consumeLedgerStream(this, this.fn, {
      table: props.table,
      filters: FALLBACK_STREAM_FILTERS,
      consumerName: 'fallback',
      queueEncryptionKey: props.queueEncryptionKey,
    }).failedBatchQueue;
    // One strongly consistent read (was the fallback sent when the primary proved delivered?) and the sends.
    // The table alone, not its indexes (Table.grant would add `index/*`).
    this.fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:GetItem'], resources: [props.table.tableArn] }));
    props.table.encryptionKey?.grantDecrypt(this.fn);
    // SendMessage alone: grantSendMessages would add GetQueueAttributes and GetQueueUrl, which the trigger never
    // calls (it names each queue by its URL).
    const sendTo = [queues.urgent, ...(queues.bulk ? [queues.bulk] : [])];
    this.fn.addToRolePolicy(new iam.PolicyStatement({ sid: 'RequestFallbacks', actions: ['sqs:SendMessage'], resources: sendTo.map((queue) => queue.queueArn) }));
    for (const queue of sendTo) queue.encryptionMasterKey?.grantEncryptDecrypt(this.fn);
  }
}
