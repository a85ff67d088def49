import type { DeliveryOutcome, DeliveryProvider } from '../functions/core/provider/delivery-provider';
import type { DeliveryEvidence } from '../functions/core/policy/message-class';
import type { ProviderRequest } from '../functions/core/templates/rendered-message';
import type { ExecutionEnvironment } from './execution-environment';
import type { FaultPlan } from './fault-plan';

/**
 * A provider wrapper that injects provider faults and the crash after an accepted send.
 * Outcomes use the same shapes the real SES/SNS adapters produce for those errors.
 */
export class FaultInjectingProvider implements DeliveryProvider {
  constructor(
    private readonly inner: DeliveryProvider,
    private readonly plan: FaultPlan,
    private readonly env: ExecutionEnvironment,
  ) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const { key } = request;
    if (this.plan.roll('providerThrottle', key)) {
      return { kind: 'transient', cause: 'throttled', reason: 'TooManyRequestsException: Rate exceeded (injected)' };
    }
    if (this.plan.roll('providerReject', key)) {
      this.plan.rejected.add(key);
      return { kind: 'permanent', reason: 'MessageRejected: rejected by the provider (injected)' };
    }
    if (this.plan.roll('providerTimeout', key)) {
      const arrived = this.plan.coin('providerTimeout', key);
      if (arrived) {
        await this.inner.send(request, signal);
        this.plan.noteUnrecordedReach(key);
      }
      return { kind: 'ambiguous', reason: `SendTimeout: no answer within the send timeout (injected; ${arrived ? 'it arrived' : 'it never arrived'})` };
    }
    const outcome = await this.inner.send(request, signal);
    if (this.env.isDead) {
      // Killed while the call was in flight (another record's crash, or the function timeout).
      if (outcome.kind === 'sent') this.plan.noteUnrecordedReach(key);
      return outcome;
    }
    if (outcome.kind === 'sent' && this.plan.roll('crashAfterSend', key)) {
      this.plan.noteUnrecordedReach(key);
      return this.env.crash();
    }
    return outcome;
  }

  lookup(key: string): Promise<DeliveryEvidence> {
    return this.inner.lookup ? this.inner.lookup(key) : Promise.resolve('none');
  }
}
