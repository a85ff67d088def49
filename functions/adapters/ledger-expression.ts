import type { LedgerRow } from '../core/ledger/ledger-record';
import { LEDGER_TABLE } from '../core/ledger/ledger-table';

/** An attribute of a ledger item: a row field (the row's key is stored as the partition and sort keys). */
export type LedgerAttribute = Exclude<keyof LedgerRow, 'key'> | typeof LEDGER_TABLE.partitionKey | typeof LEDGER_TABLE.sortKey;

/**
 * One request's expressions over ledger items, keyed by the items' own attribute names: every attribute
 * is written `#<attribute>` (never bare: some, such as `state`, are DynamoDB reserved words, and one
 * spelling keeps the requests readable and the tests' pinned expressions stable), every value
 * `:<label>`. Only what the expressions name is sent: DynamoDB refuses unused names and values.
 */
export class LedgerExpression {
  private readonly names: Record<string, string> = {};
  private readonly values: Record<string, unknown> = {};

  /** `#attribute`. */
  name(attribute: LedgerAttribute): string {
    this.names[`#${attribute}`] = attribute;
    return `#${attribute}`;
  }

  /** `:label`, bound to `value`; a label names one value per request. */
  value(label: string, value: unknown): string {
    const placeholder = `:${label}`;
    if (placeholder in this.values && this.values[placeholder] !== value) {
      throw new Error(`Ledger expression: ${placeholder} is bound twice, to different values`);
    }
    this.values[placeholder] = value;
    return placeholder;
  }

  /** `#attribute = :label`: an assignment in a SET clause, or an equality in a condition. */
  is(attribute: LedgerAttribute, label: string, value: unknown): string {
    return `${this.name(attribute)} = ${this.value(label, value)}`;
  }

  /** The names and values the expressions used, as the request carries them. */
  attributes(): { ExpressionAttributeNames: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> } {
    return {
      ExpressionAttributeNames: { ...this.names },
      ...(Object.keys(this.values).length > 0 ? { ExpressionAttributeValues: { ...this.values } } : {}),
    };
  }
}
