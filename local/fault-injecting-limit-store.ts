import type { LimitStore, CountResult } from '../functions/core/policy/limit-store';
import type { ScopeCount } from '../functions/core/policy/message-limits';
import type { FaultPlan } from './fault-plan';
import { throttlingError } from './fault-injecting-ledger';

/**
 * A {@link LimitStore} wrapper with the limit store's faults, decided per counter and event by the
 * plan's `dynamoThrottle` rate: a request throttled before it is written (nothing counted), and one
 * whose response is lost after it was written (counted, but the caller cannot know).
 */
export class FaultInjectingLimitStore implements LimitStore {
  constructor(
    private readonly inner: LimitStore,
    private readonly plan: FaultPlan,
  ) {}

  async count(counter: ScopeCount, digest: Uint8Array): Promise<CountResult> {
    const id = `${counter.partition}|${Buffer.from(digest).toString('hex')}`;
    if (this.plan.roll('dynamoThrottle', id, 'count')) throw throttlingError();
    const result = await this.inner.count(counter, digest);
    if (this.plan.roll('dynamoThrottle', id, 'count-lost')) {
      throw Object.assign(new Error('socket hang up after the write (injected lost response)'), { name: 'TimeoutError' });
    }
    return result;
  }
}
