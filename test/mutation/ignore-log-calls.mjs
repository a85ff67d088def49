// @ts-check
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

const LOG_METHODS = new Set(['debug', 'info', 'warn', 'error']);

/** `log.warn(...)`, `ctx.log.info(...)`, `this.ctx.log.error(...)`: a call on the log port. */
function isLogCall(node) {
  if (node?.type !== 'CallExpression') return false;
  const callee = node.callee;
  if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier' || !LOG_METHODS.has(callee.property.name)) {
    return false;
  }
  const port = callee.object;
  return (
    (port.type === 'Identifier' && port.name === 'log') ||
    (port.type === 'MemberExpression' && port.property.type === 'Identifier' && port.property.name === 'log')
  );
}

/**
 * Stryker ignorer: mutants inside a statement that only writes a log line. What a log line says
 * cannot change what is sent or recorded, and the suite runs with a silent log; the log
 * content that matters (no addresses) is tested on its own, outside the mutation scope.
 */
export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'log-calls', {
    shouldIgnore(path) {
      if (!path.isExpressionStatement()) return undefined;
      const expression = path.node.expression;
      const call = expression.type === 'AwaitExpression' ? expression.argument : expression;
      return isLogCall(call) ? 'A log line: its text changes nothing that is sent or recorded' : undefined;
    },
  }),
];
