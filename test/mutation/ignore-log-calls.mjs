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

/** A statement that only writes a log line (awaited or not). */
function isLogStatement(node) {
  if (node?.type !== 'ExpressionStatement') return false;
  const expression = node.expression;
  return isLogCall(expression.type === 'AwaitExpression' ? expression.argument : expression);
}

/** A log statement, or a block of nothing but log statements. */
function onlyLogs(node) {
  if (node?.type === 'BlockStatement') return node.body.length > 0 && node.body.every(isLogStatement);
  return isLogStatement(node);
}

/** Whether evaluating `node` can do anything besides produce a value (a call, an await, an assignment). */
const EFFECTS = 'CallExpression|NewExpression|AwaitExpression|AssignmentExpression|UpdateExpression';

function hasEffects(path) {
  if (EFFECTS.split('|').includes(path.node.type)) return true;
  let effects = false;
  path.traverse({
    [EFFECTS](inner) {
      effects = true;
      inner.stop();
    },
  });
  return effects;
}

/**
 * Stryker ignorer: mutants that can only change what is logged. What a log line says cannot change
 * what is sent or recorded, and the suite runs with a silent log; the log content that matters (no
 * addresses) is tested on its own, outside the mutation scope. Ignored:
 * - a statement that only writes a log line;
 * - a block of nothing but such statements (a catch that only logs, a branch that only logs);
 * - an `if` without `else` whose body only logs and whose condition has no effects of its own.
 */
export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'log-calls', {
    shouldIgnore(path) {
      if (isLogStatement(path.node)) return 'A log line: its text changes nothing that is sent or recorded';
      if (path.isBlockStatement() && onlyLogs(path.node)) return 'A block that only logs: emptying it changes nothing that is sent or recorded';
      if (path.isIfStatement() && !path.node.alternate && onlyLogs(path.node.consequent) && !hasEffects(path.get('test'))) {
        return 'An if that only decides whether a log line is written';
      }
      return undefined;
    },
  }),
];
