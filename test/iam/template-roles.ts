import type { Deployment, IamRequest } from './iam-requests';

/**
 * Each function's permissions as the synthesized template grants them: the statements of every policy attached
 * to its role (the role's inline policies and each AWS::IAM::Policy naming it), with CloudFormation's intrinsics
 * resolved to the names a local run used, so they can be held against the requests that run recorded.
 */

type Json = Record<string, unknown>;
export interface Resource {
  readonly Type: string;
  readonly Properties?: Json;
}
export interface TemplateJson {
  readonly Resources: Record<string, Resource>;
}

export interface Statement {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | string[];
  readonly NotAction?: string | string[];
  readonly Resource?: string | string[];
  readonly NotResource?: string | string[];
  readonly Condition?: Json;
}

/** A function's statements, each with the name of the policy that holds it. */
export interface FunctionGrants {
  readonly logicalId: string;
  readonly statements: readonly { readonly policy: string; readonly statement: Statement }[];
}

/**
 * Resolves the template's intrinsics: pseudo parameters from `at`, a resource's Ref and Fn::GetAtt from its
 * physical name (`names`, else its own name property, else its logical id). `literals` renames a name the
 * template writes as text (End User Messaging's configuration set, named at synth) to the one the run used.
 */
export class TemplateResolver {
  constructor(
    private readonly template: TemplateJson,
    private readonly at: Deployment,
    private readonly names: ReadonlyMap<string, string>,
    private readonly literals: ReadonlyMap<string, string> = new Map(),
  ) {}

  nameOf(logicalId: string): string {
    const known = this.names.get(logicalId);
    if (known) return known;
    const props = this.template.Resources[logicalId]?.Properties ?? {};
    for (const key of ['TableName', 'QueueName', 'LogGroupName', 'Name', 'FunctionName', 'TopicName']) {
      if (typeof props[key] === 'string') return props[key];
    }
    return logicalId;
  }

  private arnOf(logicalId: string): string {
    const type = this.template.Resources[logicalId]?.Type;
    const name = this.nameOf(logicalId);
    const arn = (service: string, resource: string): string => `arn:${this.at.partition}:${service}:${this.at.region}:${this.at.account}:${resource}`;
    switch (type) {
      case 'AWS::DynamoDB::Table':
        return arn('dynamodb', `table/${name}`);
      case 'AWS::SQS::Queue':
        return arn('sqs', name);
      case 'AWS::Logs::LogGroup':
        return arn('logs', `log-group:${name}:*`);
      case 'AWS::Events::EventBus':
        return arn('events', `event-bus/${name}`);
      case 'AWS::SNS::Topic':
        return arn('sns', name);
      case 'AWS::Lambda::Function':
        return arn('lambda', `function:${name}`);
      case 'AWS::IAM::Role':
        return `arn:${this.at.partition}:iam::${this.at.account}:role/${name}`;
      default:
        throw new Error(`no ARN rule for ${logicalId} (${type}): add it to test/iam/template-roles.ts`);
    }
  }

  resolve(value: unknown): unknown {
    if (typeof value === 'string') return [...this.literals].reduce((text, [synth, run]) => text.replaceAll(synth, run), value);
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (typeof value !== 'object' || value === null) return value;
    const v = value as Json;
    if ('Ref' in v) {
      const ref = String(v['Ref']);
      if (ref === 'AWS::Partition') return this.at.partition;
      if (ref === 'AWS::Region') return this.at.region;
      if (ref === 'AWS::AccountId') return this.at.account;
      if (ref === 'AWS::URLSuffix') return 'amazonaws.com';
      const type = this.template.Resources[ref]?.Type;
      if (type === 'AWS::SQS::Queue') return `https://sqs.${this.at.region}.amazonaws.com/${this.at.account}/${this.nameOf(ref)}`;
      if (type === 'AWS::SNS::Topic') return this.arnOf(ref);
      return this.nameOf(ref);
    }
    if ('Fn::GetAtt' in v) {
      const [id, attribute] = v['Fn::GetAtt'] as [string, string];
      if (attribute === 'Arn') return this.arnOf(id);
      if (attribute === 'StreamArn') return `${this.arnOf(id)}/stream/local`;
      if (attribute === 'QueueName') return this.nameOf(id);
      throw new Error(`no rule for Fn::GetAtt ${id}.${attribute}`);
    }
    if ('Fn::Join' in v) {
      const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
      return parts.map((p) => String(this.resolve(p))).join(separator);
    }
    if ('Fn::Select' in v) {
      const [index, list] = v['Fn::Select'] as [number, unknown];
      return (this.resolve(list) as unknown[])[Number(index)];
    }
    if ('Fn::Split' in v) {
      const [separator, source] = v['Fn::Split'] as [string, unknown];
      return String(this.resolve(source)).split(separator);
    }
    return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, this.resolve(inner)]));
  }
}

const refOf = (value: unknown): string | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Json;
  if (typeof v['Ref'] === 'string') return v['Ref'];
  const getAtt = v['Fn::GetAtt'];
  return Array.isArray(getAtt) ? String(getAtt[0]) : undefined;
};

/** The template's functions, by logical id. */
export function functionsOf(template: TemplateJson): string[] {
  return Object.entries(template.Resources)
    .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
    .map(([id]) => id);
}

/** Every statement granted to `functionId`'s role, resolved. */
export function grantsOf(template: TemplateJson, functionId: string, resolver: TemplateResolver): FunctionGrants {
  const role = refOf(template.Resources[functionId]?.Properties?.['Role']);
  if (!role) throw new Error(`${functionId} has no role in the template`);
  const statements: { policy: string; statement: Statement }[] = [];
  const add = (policy: string, document: unknown): void => {
    const resolved = resolver.resolve(document) as { Statement: Statement | Statement[] };
    for (const statement of [resolved.Statement].flat()) statements.push({ policy, statement });
  };
  const roleProps = template.Resources[role]?.Properties ?? {};
  if (Array.isArray(roleProps['ManagedPolicyArns']) && roleProps['ManagedPolicyArns'].length > 0) {
    throw new Error(`${functionId}'s role has managed policies, which this check cannot read: ${JSON.stringify(roleProps['ManagedPolicyArns'])}`);
  }
  for (const p of (roleProps['Policies'] as { PolicyName: string; PolicyDocument: unknown }[] | undefined) ?? []) add(p.PolicyName, p.PolicyDocument);
  for (const [id, r] of Object.entries(template.Resources)) {
    if (r.Type !== 'AWS::IAM::Policy' && r.Type !== 'AWS::IAM::ManagedPolicy') continue;
    const roles = ((r.Properties?.['Roles'] as unknown[]) ?? []).map(refOf);
    if (roles.includes(role)) add(id, r.Properties?.['PolicyDocument']);
  }
  return { logicalId: functionId, statements };
}

/**
 * The requests Lambda itself makes with the function's role, read from the template (no code makes them, so no
 * run records them): writing the function's logs; polling each SQS event source (ReceiveMessage, DeleteMessage,
 * GetQueueAttributes, as AWSLambdaSQSQueueExecutionRole grants them); reading each DynamoDB stream source
 * (AWSLambdaDynamoDBExecutionRole's four actions); and sending a failed batch's record, or a failed asynchronous
 * event, to its on-failure destination (sqs:SendMessage).
 */
export function platformRequests(template: TemplateJson, functionId: string, resolver: TemplateResolver, fn: string, at: Deployment): IamRequest[] {
  const props = template.Resources[functionId]?.Properties ?? {};
  const requests: IamRequest[] = [];
  const add = (actions: readonly string[], resource: string, call: string): void => {
    for (const action of actions) requests.push({ fn, action, resource, context: {}, call });
  };
  const logGroup = (props['LoggingConfig'] as Json | undefined)?.['LogGroup'];
  const logGroupName = logGroup ? String(resolver.resolve(logGroup)) : `/aws/lambda/${resolver.nameOf(functionId)}`;
  add(
    ['logs:CreateLogStream', 'logs:PutLogEvents'],
    `arn:${at.partition}:logs:${at.region}:${at.account}:log-group:${logGroupName}:log-stream:2026/01/01/[$LATEST]0`,
    'Lambda writes the function\'s logs',
  );
  for (const [, r] of Object.entries(template.Resources)) {
    // An asynchronous invocation's on-failure destination (the status function's FailedEvents queue).
    if (r.Type === 'AWS::Lambda::EventInvokeConfig' && refOf(r.Properties?.['FunctionName']) === functionId) {
      const destination = ((r.Properties?.['DestinationConfig'] as Json | undefined)?.['OnFailure'] as Json | undefined)?.['Destination'];
      if (destination) add(['sqs:SendMessage'], String(resolver.resolve(destination)), 'Lambda sends a failed asynchronous event to its on-failure destination');
    }
    if (r.Type !== 'AWS::Lambda::EventSourceMapping' || refOf(r.Properties?.['FunctionName']) !== functionId) continue;
    const source = String(resolver.resolve(r.Properties?.['EventSourceArn']));
    if (source.includes(':sqs:')) add(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'], source, 'Lambda polls the SQS event source');
    else if (source.includes('/stream/')) {
      add(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], source, 'Lambda reads the DynamoDB stream');
      add(['dynamodb:ListStreams'], '*', 'Lambda reads the DynamoDB stream');
    }
    const onFailure = ((r.Properties?.['DestinationConfig'] as Json | undefined)?.['OnFailure'] as Json | undefined)?.['Destination'];
    if (onFailure) add(['sqs:SendMessage'], String(resolver.resolve(onFailure)), 'Lambda sends a failed batch to its on-failure destination');
  }
  return requests;
}
