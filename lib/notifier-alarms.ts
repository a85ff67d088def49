import { Annotations, Aws } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as snsSubscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { ALARM_TABLE, type AlarmName, type AlarmSources, runbookLink } from './alarm-table';
import type { NotifierAlarmOptions } from './alarm-options';

export {
  ALARM,
  ALARM_TABLE,
  BACKLOG_AGE_EVALUATION_PERIODS,
  RUNBOOK_PAGE,
  runbookLink,
  type AlarmName,
  type AlarmSources,
  type AlarmSpec,
  type NotifierFunctions,
} from './alarm-table';

/** What {@link NotifierAlarms} watches and where it sends alarms. */
export interface NotifierAlarmsProps extends AlarmSources, Pick<NotifierAlarmOptions, 'topic' | 'emails'> {}

/** The notifier's alarms, one per row of {@link ALARM_TABLE}, all wired to one SNS topic. */
export class NotifierAlarms extends Construct {
  /** The topic alarms notify. */
  public readonly topic: sns.ITopic;
  /** Every alarm this notifier has, by name (a row whose `when` is false has none). */
  public readonly alarms: Readonly<Partial<Record<AlarmName, cloudwatch.Alarm>>>;

  constructor(scope: Construct, id: string, props: NotifierAlarmsProps) {
    super(scope, id);

    let created: sns.Topic | undefined;
    if (props.topic) {
      this.topic = props.topic;
    } else {
      // Not KMS-encrypted: alarm notifications carry alarm names and metric values only, and CloudWatch
      // cannot publish to a topic encrypted with the AWS managed SNS key. Pass `topic` to use your own.
      created = new sns.Topic(this, 'Topic', { displayName: 'Idempotent notifier alarms', enforceSSL: true });
      this.topic = created;
    }
    const emails = props.emails ?? [];
    for (const email of emails) this.topic.addSubscription(new snsSubscriptions.EmailSubscription(email));
    if (!props.topic && emails.length === 0) {
      Annotations.of(this).addWarningV2(
        NO_ALARM_SUBSCRIBER_WARNING,
        'No alarm subscriber: the alarm topic has no subscription, so no alarm reaches a person. ' +
          'Set notifier:alarmEmails (or alarms.emails), or notifier:alarmTopicArn (or alarms.topic) to an existing topic.',
      );
    }
    const action = new cloudwatchActions.SnsAction(this.topic);

    const alarms: Partial<Record<AlarmName, cloudwatch.Alarm>> = {};
    for (const [name, spec] of Object.entries(ALARM_TABLE) as [AlarmName, (typeof ALARM_TABLE)[AlarmName]][]) {
      if (spec.when && !spec.when(props)) continue;
      const evaluationPeriods = spec.evaluationPeriods?.(props) ?? 1;
      const alarm = new cloudwatch.Alarm(this, name, {
        metric: spec.metric(props),
        threshold: spec.threshold(props),
        evaluationPeriods,
        datapointsToAlarm: evaluationPeriods,
        comparisonOperator: spec.comparison ?? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        // No datapoint means no such event happened (EMF metrics exist only when emitted).
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `${spec.description} Runbook: ${runbookLink(name)}`,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      alarms[name] = alarm;
    }
    this.alarms = alarms;

    // A topic policy replaces SNS's default one, and `enforceSSL` creates a policy: without this statement
    // CloudWatch may not publish and no alarm is ever delivered.
    created?.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowThisStacksAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
          ArnEquals: { 'aws:SourceArn': Object.values(alarms).map((a) => a.alarmArn) },
        },
      }),
    );
  }
}

/** Id of the synth warning printed when no alarm reaches a person. */
export const NO_ALARM_SUBSCRIBER_WARNING = '@idempotent-notifier/alarms:no-subscriber';
