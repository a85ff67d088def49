import type { LogPort } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { DeliveryStatusStore } from '../../functions/core/provider/delivery-status';
import { createStatusHandler, type StatusRunSummary } from '../../functions/status/create-status-handler';
import type { ControlledClock } from '../support/controlled-clock';
import { lambdaContext } from '../support/sqs-event';

/** The real status handler with in-memory metrics and captured structured logs. */
export class StatusHarness {
  readonly metrics = new InMemoryMetrics();
  readonly logs: { level: string; message: string; attributes: Record<string, unknown> | undefined }[] = [];
  private readonly handler;

  constructor(store: DeliveryStatusStore, clock: ControlledClock) {
    const capture =
      (level: string) =>
      (message: string, attributes?: Record<string, unknown>): void => {
        this.logs.push({ level, message, attributes });
      };
    const log: LogPort = { info: capture('info'), warn: capture('warn'), error: capture('error') };
    this.handler = createStatusHandler({ store, metrics: this.metrics, log, clock: clock.now });
  }

  invoke(event: unknown): Promise<StatusRunSummary> {
    return this.handler(event, lambdaContext());
  }

  /** Everything logged, as one string: for asserting what must never appear. */
  logText(): string {
    return JSON.stringify(this.logs);
  }
}
