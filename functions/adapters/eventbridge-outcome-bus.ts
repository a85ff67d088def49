import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { FailedOutcomeEntry, OutcomeBus } from '../core/outcome/outcome-bus';
import { OUTCOME_DETAIL_TYPE, OUTCOME_EVENT_SOURCE, type OutcomeEventDetail } from '../core/outcome/outcome-event';

/**
 * The outcome bus on EventBridge: one PutEvents per call. EventBridge answers per entry ("Handling failures with
 * PutEvents": a failed entry carries `ErrorCode`, the others an `EventId`, in the request's order,
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevents.html); a call that fails as a whole is
 * answered as every entry failed, so the publisher retries them like any other failed entry.
 */
export class EventBridgeOutcomeBus implements OutcomeBus {
  constructor(
    private readonly client: EventBridgeClient,
    /** The bus's name or ARN. */
    private readonly eventBusName: string,
  ) {}

  async publish(events: readonly OutcomeEventDetail[]): Promise<readonly FailedOutcomeEntry[]> {
    if (events.length === 0) return [];
    const entries: PutEventsRequestEntry[] = events.map((detail) => ({
      EventBusName: this.eventBusName,
      Source: OUTCOME_EVENT_SOURCE,
      DetailType: OUTCOME_DETAIL_TYPE,
      Detail: JSON.stringify(detail),
      Time: new Date(detail.stateAt),
    }));
    try {
      const answer = await this.client.send(new PutEventsCommand({ Entries: entries }));
      const results = answer.Entries ?? [];
      const failed: FailedOutcomeEntry[] = [];
      events.forEach((_, index) => {
        const result = results[index];
        // No result for an entry (a short answer) is no proof it was taken: it is sent again.
        if (result === undefined || result.ErrorCode !== undefined || result.EventId === undefined) {
          failed.push({ index, errorCode: result?.ErrorCode ?? 'NoResultEntry' });
        }
      });
      return failed;
    } catch (error) {
      const errorCode = error instanceof Error ? error.name : 'UnknownError';
      return events.map((_, index) => ({ index, errorCode }));
    }
  }
}

/** The client the publisher puts events with: the SDK's standard retries (a repeated PutEvents is a duplicate consumers drop). */
export function createEventBridgeClient(): EventBridgeClient {
  return new EventBridgeClient({});
}
