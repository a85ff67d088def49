import type * as events from 'aws-cdk-lib/aws-events';

/** Outcome events: every message's outcome on an event bus, for producers. Built by lib/notifier-outcomes.ts. */
export interface OutcomeEventProps {
  /**
   * The bus the outcome events are put on (docs/outcome-events.md). An existing bus is given by
   * `events.EventBus.fromEventBusName(...)` or `fromEventBusArn(...)`; the publisher gets `events:PutEvents` on it alone.
   * @default - a bus this stack creates and owns (named in the stack outputs as `OutcomeEventBusName`)
   */
  readonly outcomeEventBus?: events.IEventBus;
  /**
   * Entry file of the outcome publisher (exports `handler`).
   * @default - `functions/outcomes/handler.ts` of this repository
   */
  readonly outcomesEntry?: string;
  /**
   * Entry file of the fallback trigger (exports `handler`; docs/design/fallback.md).
   * @default - `functions/fallback/handler.ts` of this repository
   */
  readonly fallbackEntry?: string;
}
