import { OUTCOME_DETAIL_TYPE, OUTCOME_EVENT_SOURCE, type OutcomeEventDetail } from './outcome-event';

/**
 * PutEvents' limits for one request: at most 10 entries (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutEvents.html,
 * `Entries`), whose sizes total less than 256 KB (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html).
 */
export const PUT_EVENTS_MAX_ENTRIES = 10;
export const PUT_EVENTS_MAX_BYTES = 256 * 1024;
/** What `Time` adds to an entry's size, whatever the time (eb-putevent-size.html, above). */
const TIME_BYTES = 14;

/** One entry that the bus did not take, by its place in the list given to {@link OutcomeBus.publish}. */
export interface FailedOutcomeEntry {
  readonly index: number;
  /** EventBridge's `ErrorCode` (`ThrottlingException`, `InternalFailure`, ...) or the name of the call's error. */
  readonly errorCode: string;
}

/** The port the publisher sends through: the stack's event bus, or a stand-in. */
export interface OutcomeBus {
  /**
   * Puts at most {@link PUT_EVENTS_MAX_ENTRIES} events of at most {@link PUT_EVENTS_MAX_BYTES} in all, and says
   * which were not taken. A call that fails as a whole (throttled, unreachable) answers every entry as failed
   * rather than throwing: putting an event twice is safe (consumers deduplicate by `outcomeId`), losing one is not.
   */
  publish(events: readonly OutcomeEventDetail[]): Promise<readonly FailedOutcomeEntry[]>;
}

/** The size EventBridge counts for one outcome event's entry: Source, DetailType, Detail and Time. */
export function putEventsEntryBytes(detail: OutcomeEventDetail): number {
  return byteLength(OUTCOME_EVENT_SOURCE) + byteLength(OUTCOME_DETAIL_TYPE) + byteLength(JSON.stringify(detail)) + TIME_BYTES;
}

/**
 * Consecutive runs of `events` that each fit one PutEvents request, in order. An event too large for any
 * request goes alone, so that EventBridge refuses it by name (and it is retried, counted and parked) rather than
 * the publisher dropping it.
 */
export function putEventsChunks<T extends OutcomeEventDetail>(events: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const event of events) {
    const size = putEventsEntryBytes(event);
    if (current.length > 0 && (current.length === PUT_EVENTS_MAX_ENTRIES || bytes + size >= PUT_EVENTS_MAX_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(event);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}
