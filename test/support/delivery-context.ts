import { randomUUID } from 'node:crypto';
import type { DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { SendLedger } from '../../functions/core/ledger/send-ledger';
import type { DeliveryContext } from '../../functions/delivery/deliver-message';
import { TIMING } from '../reclaimer/reclaimer-harness';
import type { ControlledClock } from './controlled-clock';

/** The context one `deliver` call needs: one provider for every channel, a controlled clock, `extra` on top. */
export function testDeliveryContext(ledger: SendLedger, provider: DeliveryProvider, clock: ControlledClock, extra: Partial<DeliveryContext> = {}): DeliveryContext {
  return {
    ledger,
    providers: { email: provider, sms: provider, push: provider },
    metrics: new InMemoryMetrics(),
    log: silentLog,
    clock: clock.now,
    newOwnerToken: randomUUID,
    timing: TIMING,
    sendTimeoutMs: 2_000,
    ...extra,
  };
}
