import type { RecordedCall } from './aws-call-recorder';

/**
 * A recorded request as IAM authorizes it: the action, the resource ARN as AWS sees it (in the stack's account
 * and region, not the local service's), and the condition keys the request sets. One call may need several
 * authorizations (SES's SendEmail: the identity and the configuration set), or may be authorized against one of
 * several resources that only the account's state decides (which identity SES uses for a From address); each
 * such resource is a request of its own, and each must be allowed.
 *
 * Each row follows the Service Authorization Reference (docs/iam-check.md lists the pages):
 * | service | operation | action | resource | condition keys set |
 * | dynamodb | GetItem, PutItem, UpdateItem, Query | dynamodb:<operation> | table/<TableName> (Query: .../index/<IndexName>) | - |
 * | sqs | SendMessage, ChangeMessageVisibility, DeleteMessage, ReceiveMessage, GetQueueAttributes | sqs:<operation> | the queue of QueueUrl | - |
 * | ses (v2) | SendEmail | ses:SendEmail | identity/<From address>, identity/<its domain and each parent>, configuration-set/<name> | ses:FromAddress, ses:FromDisplayName, ses:Recipients, ses:TenantName, ses:ApiVersion |
 * | ses (v2) | GetAccount | ses:GetAccount | * | ses:ApiVersion |
 * | sns | Publish to PhoneNumber | sns:Publish | * (no topic) | - |
 * | sns | Publish to TargetArn | sns:Publish | the endpoint ARN | - |
 * | sns | CheckIfPhoneNumberIsOptedOut | sns:CheckIfPhoneNumberIsOptedOut | * | - |
 * | sms-voice | SendTextMessage | sms-voice:SendTextMessage | configuration-set/<name>, the origination identity's ARN, protect-configuration/<id> | - |
 * | events | PutEvents | events:PutEvents | event-bus/<EventBusName> | - |
 */
export interface IamRequest {
  readonly fn: string;
  readonly action: string;
  readonly resource: string;
  readonly context: Readonly<Record<string, string | string[]>>;
  /** What the request was, for a failure message. */
  readonly call: string;
}

/** The account and region the stack is deployed to, as the simulated requests name them. */
export interface Deployment {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
}

type Json = Record<string, unknown>;

/** Each IAM authorization `call` needs. Throws for a request no row maps: a new call must be mapped, not skipped. */
export function iamRequestsOf(call: RecordedCall, at: Deployment): IamRequest[] {
  const arn = (service: string, resource: string): string => `arn:${at.partition}:${service}:${at.region}:${at.account}:${resource}`;
  const operation = operationOf(call);
  const made = (action: string, resources: readonly string[], context: Record<string, string | string[]> = {}): IamRequest[] =>
    resources.map((resource) => ({ fn: call.fn, action, resource, context, call: `${call.service} ${operation}` }));
  switch (call.service) {
    case 'dynamodb': {
      const body = json(call.body);
      const table = arn('dynamodb', `table/${String(body['TableName'])}`);
      if (!['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'].includes(operation)) break;
      return made(`dynamodb:${operation}`, [typeof body['IndexName'] === 'string' ? `${table}/index/${body['IndexName']}` : table]);
    }
    case 'sqs': {
      const body = call.target ? json(call.body) : Object.fromEntries(new URLSearchParams(call.body));
      const name = String(body['QueueUrl'] ?? '').split('/').pop();
      if (!name) break;
      return made(`sqs:${operation}`, [arn('sqs', name)]);
    }
    case 'ses': {
      if (operation === 'GetAccount') return made('ses:GetAccount', ['*'], { 'ses:ApiVersion': '2' });
      if (operation !== 'SendEmail') break;
      const body = json(call.body);
      const from = parseFrom(String(body['FromEmailAddress'] ?? ''));
      const destination = (body['Destination'] ?? {}) as Json;
      const recipients = ['ToAddresses', 'CcAddresses', 'BccAddresses'].flatMap((k) => (destination[k] as string[] | undefined) ?? []);
      const context: Record<string, string | string[]> = {
        'ses:ApiVersion': '2',
        'ses:FromAddress': from.address,
        'ses:Recipients': recipients,
        ...(from.displayName ? { 'ses:FromDisplayName': from.displayName } : {}),
        ...(typeof body['TenantName'] === 'string' ? { 'ses:TenantName': body['TenantName'] } : {}),
      };
      const configurationSet = typeof body['ConfigurationSetName'] === 'string' ? [arn('ses', `configuration-set/${body['ConfigurationSetName']}`)] : [];
      return made('ses:SendEmail', [...identityCandidates(from.address).map((identity) => arn('ses', `identity/${identity}`)), ...configurationSet], context);
    }
    case 'sns': {
      const body = Object.fromEntries(new URLSearchParams(call.body));
      if (operation === 'CheckIfPhoneNumberIsOptedOut') return made('sns:CheckIfPhoneNumberIsOptedOut', ['*']);
      if (operation !== 'Publish') break;
      // A publish to a phone number names no ARN; to a platform endpoint, the endpoint's ARN.
      return made('sns:Publish', [body['TargetArn'] ?? body['TopicArn'] ?? '*']);
    }
    case 'events': {
      if (operation !== 'PutEvents') break;
      const entries = (json(call.body)['Entries'] ?? []) as Json[];
      const buses = [...new Set(entries.map((e) => String(e['EventBusName'] ?? 'default')))];
      return made('events:PutEvents', buses.map((bus) => (bus.startsWith('arn:') ? bus : arn('events', `event-bus/${bus}`))));
    }
    case 'sms-voice': {
      if (operation !== 'SendTextMessage') break;
      const body = json(call.body);
      const identity = body['OriginationIdentity'];
      // The stack gives an identity's ARN (lib/end-user-messaging-sms.ts); an id (phone-..., pool-...) would need
      // its resource type, and none would let the service pick any identity the account has.
      if (typeof identity !== 'string' || !identity.startsWith('arn:')) {
        throw new Error(`${call.fn}'s SendTextMessage names no origination identity ARN (${String(identity)}): map it in test/iam/iam-requests.ts`);
      }
      const resources = [
        ...(typeof body['ConfigurationSetName'] === 'string' ? [arn('sms-voice', `configuration-set/${body['ConfigurationSetName']}`)] : []),
        identity,
        ...(typeof body['ProtectConfigurationId'] === 'string' ? [arn('sms-voice', `protect-configuration/${body['ProtectConfigurationId']}`)] : []),
      ];
      return made('sms-voice:SendTextMessage', resources);
    }
  }
  throw new Error(`no IAM mapping for ${call.fn}'s ${call.service} ${operation} (${call.method} ${call.path}): add its row to test/iam/iam-requests.ts`);
}

/** The API operation: the JSON protocols' X-Amz-Target, the query protocol's Action, SES v2's REST path. */
export function operationOf(call: RecordedCall): string {
  if (call.target) return call.target.slice(call.target.lastIndexOf('.') + 1);
  const action = new URLSearchParams(call.body).get('Action');
  if (action) return action;
  const path = call.path.split('?')[0] ?? '';
  if (call.method === 'POST' && path === '/v2/email/outbound-emails') return 'SendEmail';
  if (call.method === 'GET' && path === '/v2/email/account') return 'GetAccount';
  return `${call.method} ${path}`;
}

/**
 * The identities SES may authorize a From address against: the address itself, its domain, and each parent
 * domain down to two labels ("a verified domain covers its subdomains"). Which one it uses depends on which the
 * account verified, which no local run knows: each must be allowed, and a grant of any of them is used.
 */
export function identityCandidates(address: string): string[] {
  const domain = address.slice(address.lastIndexOf('@') + 1);
  const labels = domain.split('.');
  const domains = labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
  return [address, ...domains];
}

function parseFrom(from: string): { address: string; displayName?: string } {
  const match = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(from);
  if (match?.[2]) return { address: match[2], ...(match[1] ? { displayName: match[1] } : {}) };
  return { address: from.trim() };
}

function json(body: string): Json {
  try {
    return JSON.parse(body) as Json;
  } catch {
    return {};
  }
}
