import { Stack, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../functions/core/observability/metric-names';

/** Characters CloudWatch refuses in a namespace (it allows letters, digits, space and `. - _ / # :`). */
const REFUSED = /[^A-Za-z0-9.\-_/#: ]/g;

/**
 * `IdempotentNotifier/<stack name>/<path of the construct in its stack>`: one namespace per notifier.
 * A stack name is unique in its account and region, and a path in its stack, so two notifiers never share
 * one, whatever else the account runs (a copy deployed by `npm run test:aws` included).
 */
export function defaultMetricsNamespace(notifier: Construct): string {
  const stack = Stack.of(notifier);
  // A stack given a token for a name: its construct path is unique in the app, and tokens cannot go in a name.
  const stackName = Token.isUnresolved(stack.stackName) ? stack.node.path : stack.stackName;
  const pathInStack = notifier.node.path.slice(stack.node.path.length + 1);
  return `${METRICS_NAMESPACE}/${stackName}/${pathInStack}`.replace(REFUSED, '_').slice(0, 255);
}
