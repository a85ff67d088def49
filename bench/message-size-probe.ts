import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LEDGER_TABLE } from '../functions/core/ledger/ledger-table';
import { COUNTER_PARTITION_PREFIX, scopeCounts } from '../functions/core/policy/message-limits';
import { buildMessageClassRegistry } from '../functions/core/policy/message-class';
import { planMessages } from '../functions/delivery/message-plan';
import type { SenderName } from '../local/senders/sender-under-test';
import { itemBytes } from '../local/item-bytes';
import type { LocalDynamo } from '../local/local-dynamo';
import { round } from '../local/stats';
import { countedSender, PROBE_MAX_RECEIVE_COUNT } from './cost-probe';
import { ORDER_CONFIRMATION_ITEMS, orderConfirmation, type OrderConfirmationSize } from './fixtures/order-confirmation';

/** Write units per delivered e-mail of one sender at one message size. */
export interface SizeCost {
  /** Table and index write units per delivered message, as DynamoDB bills them. */
  readonly writeUnits: number;
  /** ... of which the limit counters (one item per limited scope of the class; none for the baselines). */
  readonly counterUnits: number;
}

/** Counter items a message of class `transactional` writes: one per limited scope. */
export const LIMITED_SCOPES = scopeCounts(
  'transactional',
  buildMessageClassRegistry().get('transactional')!.limits,
  { eventId: 'e', recipientId: 'r', channel: 'email', templateId: 't', address: 'a@example.com' },
  0,
).length;

/** One message size: what the rendered e-mail weighs and what delivering it costs each sender. */
export interface SizeRow {
  readonly size: OrderConfirmationSize;
  readonly items: number;
  /** UTF-8 bytes of the rendered subject, text and HTML. */
  readonly renderedBytes: number;
  readonly firstReceive: Readonly<Record<SenderName, SizeCost>>;
  /** This sender on the message's last receive: the claim enters the pending index and keeps the message, packed. */
  readonly lastReceive: SizeCost & {
    /** Bytes of the largest discoverable claim written (its packed message included), by DynamoDB's item-size rules. */
    readonly claimItemBytes: number;
  };
}

export interface MessageSizeProbe {
  readonly messages: number;
  readonly rows: readonly SizeRow[];
}

const SIZES: readonly OrderConfirmationSize[] = ['small', 'standard', 'large'];
const SENDERS: readonly SenderName[] = ['this-sender', 'powertools', 'naive'];

/**
 * Table write units consumed, all and those of the limit counters (items under `limit#`), as the server reports them;
 * and the bytes of the largest claim put with a pending-index entry (a discoverable claim, which keeps the message).
 */
interface WriteUnits {
  readonly table: number;
  readonly counters: number;
  readonly discoverableClaimBytes: number;
}

/**
 * Sums the consumed capacity of every write on `client` (reads are left out: a redelivery reads its row first), and
 * of the writes to limit counters apart: the rest of a delivery's units are the ledger's own (claim, outcome).
 */
function countWriteUnits(client: DynamoDBClient): () => WriteUnits {
  let table = 0;
  let counters = 0;
  let discoverableClaimBytes = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: Record<string, unknown>; Item?: Record<string, unknown> };
      if (context.commandName === 'PutItemCommand' && input.Item?.[LEDGER_TABLE.pendingIndex.partitionKey] !== undefined) {
        // The item as the sender wrote it (document form: this step runs before the document client marshals it).
        discoverableClaimBytes = Math.max(discoverableClaimBytes, itemBytes(input.Item));
      }
      const pk = (input.Key ?? input.Item)?.pk;
      const partition = typeof pk === 'string' ? pk : (pk as { S?: string } | undefined)?.S;
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } }).ConsumedCapacity?.CapacityUnits ?? 0;
      if (/^(Put|Update|Delete)/.test(context.commandName ?? '')) {
        table += consumed;
        if (partition?.startsWith(COUNTER_PARTITION_PREFIX)) counters += consumed;
      }
      return result;
    },
    { step: 'initialize', name: 'probeWriteUnits', override: true },
  );
  return () => ({ table, counters, discoverableClaimBytes });
}

/**
 * Delivers `messages` order confirmations of each size (about 2, 15 and 90 KB rendered, see
 * fixtures/order-confirmation.ts) through each sender on a fresh table, on their first receive, and through this
 * sender on their last receive; counts the write units DynamoDB would bill (dynalite's consumed capacity of each
 * write for the table, local/gsi-write-model.ts for the indexes). Deterministic: no faults, sequential batches.
 */
export async function probeMessageSizes(dynamo: LocalDynamo, messages = 20): Promise<MessageSizeProbe> {
  const rows: SizeRow[] = [];
  const transactional = buildMessageClassRegistry().get('transactional')!;
  for (const size of SIZES) {
    const fixture = orderConfirmation(size);
    const occurredAt = new Date().toISOString();
    const bodies = (pass: string) =>
      Array.from({ length: messages }, (_, i) => JSON.stringify(fixture.event({ eventId: `size-${size}-${pass}-${i}`, recipientId: `buyer-${i}`, email: `buyer-${i}@example.com`, occurredAt })));
    const [plan] = planMessages(fixture.event({ occurredAt }), transactional, fixture.templates);
    if (!plan?.prepared.ok || plan.prepared.request.message.channel !== 'email') throw new Error(`the ${size} order confirmation does not render`);
    const { subject, text, html = '' } = plan.prepared.request.message;
    const cost = async (sender: SenderName, receiveCount: number): Promise<SizeCost & { claimItemBytes: number }> => {
      const under = await countedSender(sender, dynamo, { templates: fixture.templates });
      const units = countWriteUnits(under.client);
      const totals = await under.pass(bodies(`${sender}-${receiveCount}`), receiveCount);
      const { table, counters, discoverableClaimBytes } = units();
      return { writeUnits: round((table + totals.gsiWriteUnits) / messages, 3), counterUnits: round(counters / messages, 3), claimItemBytes: discoverableClaimBytes };
    };
    const firstReceive = {} as Record<SenderName, SizeCost>;
    for (const sender of SENDERS) {
      const { writeUnits, counterUnits } = await cost(sender, 1);
      firstReceive[sender] = { writeUnits, counterUnits };
    }
    rows.push({
      size,
      items: ORDER_CONFIRMATION_ITEMS[size],
      renderedBytes: Buffer.byteLength(subject + text + html, 'utf8'),
      firstReceive,
      lastReceive: await cost('this-sender', PROBE_MAX_RECEIVE_COUNT),
    });
  }
  return { messages, rows };
}

/** The probe as table rows: size, then write units per delivered e-mail of each column. */
export function messageSizeTable(probe: MessageSizeProbe): { header: string[]; rows: string[][] } {
  const units = (c: SizeCost) => (c.counterUnits > 0 ? `${c.writeUnits} (ledger ${round(c.writeUnits - c.counterUnits, 3)} + limit counters ${c.counterUnits})` : String(c.writeUnits));
  return {
    header: ['order confirmation', 'this sender, first receive', 'Powertools idempotency', 'naive check-then-insert', 'this sender, last receive (claim indexed, message packed)'],
    rows: probe.rows.map((r) => [
      `${round(r.renderedBytes / 1024, 1)} KB (${r.items} item${r.items === 1 ? '' : 's'})`,
      units(r.firstReceive['this-sender']),
      units(r.firstReceive.powertools),
      units(r.firstReceive.naive),
      units(r.lastReceive),
    ]),
  };
}

/** The floors of issue 37, each with what was measured. */
export function messageSizeFloors(probe: MessageSizeProbe): { floor: string; required: string; measured: string; met: boolean }[] {
  return probe.rows.flatMap((r) => {
    const ours = r.firstReceive['this-sender'];
    const ledger = round(ours.writeUnits - ours.counterUnits, 3);
    const powertools = r.firstReceive.powertools.writeUnits;
    const kb = `${round(r.renderedBytes / 1024, 1)} KB e-mail`;
    return [
      {
        floor: `write units per delivered ${kb}, first receive (table + GSI)`,
        required: `<= 2 + 1 per limited scope (${LIMITED_SCOPES}): ${2 + LIMITED_SCOPES}`,
        measured: `${ours.writeUnits} (limit counters ${ours.counterUnits})`,
        met: ours.writeUnits <= 2 + LIMITED_SCOPES,
      },
      { floor: `ledger write units per delivered ${kb}, first receive`, required: "<= Powertools'", measured: `${ledger} vs ${powertools}`, met: ledger <= powertools },
    ];
  });
}
