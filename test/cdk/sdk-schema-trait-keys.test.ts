import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { literalSchemaTraitKeys, SDK_SCHEMA_MODULE } from '../../lib/bundle-child-process';
import { buildBundle } from '../../bench/bundle-build';
import { DEFAULT_ENTRIES } from '../../lib/notifier-function';

const require = createRequire(import.meta.url);
const SDK_ROOT = dirname(dirname(require.resolve('@aws-sdk/client-dynamodb/package.json')));

/** Every installed client's generated schema modules. */
const schemaModules = readdirSync(SDK_ROOT)
  .filter((name) => name.startsWith('client-'))
  .flatMap((client) => {
    const dir = join(SDK_ROOT, client, 'dist-es', 'schemas');
    try {
      return readdirSync(dir).map((file) => join(dir, file));
    } catch {
      return [];
    }
  })
  .filter((path) => SDK_SCHEMA_MODULE.test(path));

/**
 * A schema module evaluated with its imports stubbed: `@smithy/core/schema`'s `TypeRegistry` records what is
 * registered, and each imported error class is one stub function per name, the same object in every evaluation.
 */
const stubs = new Map<string, unknown>();
function stubOf(name: string): unknown {
  if (!stubs.has(name)) stubs.set(name, Object.defineProperty(function stub() {}, 'name', { value: name }));
  return stubs.get(name);
}
function evaluate(source: string): { exports: Record<string, unknown>; registered: unknown[] } {
  const registered: unknown[] = [];
  class TypeRegistry {
    constructor(readonly namespace: string) {}
    registerError(schema: unknown, ctor: unknown): void {
      registered.push([this.namespace, schema, ctor]);
    }
  }
  const stubRequire = (specifier: string): unknown =>
    specifier === '@smithy/core/schema' ? { TypeRegistry } : new Proxy({}, { get: (_target, name) => stubOf(`${specifier}#${String(name)}`) });
  const module = { exports: {} as Record<string, unknown> };
  const { code } = transformSync(source, { format: 'cjs', loader: 'js' });
  new Function('require', 'module', 'exports', code)(stubRequire, module, module.exports);
  return { exports: module.exports, registered };
}

/** Deep equality that follows a schema's thunks (`() => Other$`), through cycles. */
function same(a: unknown, b: unknown, seen = new Set<unknown>()): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a === 'function' && typeof b === 'function') {
    if (a.length !== 0 || b.length !== 0 || stubs.has(a.name)) return false;
    if (seen.has(a)) return true;
    seen.add(a);
    return same((a as () => unknown)(), (b as () => unknown)(), seen);
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (seen.has(a)) return true;
  seen.add(a);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.join('\n') !== keysB.join('\n')) return false;
  return keysA.every((key) => same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], seen));
}

describe("the bundling's rewrite of the AWS SDK's schema trait keys (lib/bundle-child-process.ts)", () => {
  it('writes a computed key naming a string constant as that string, and leaves any other key alone', () => {
    const source = ['const _e = "error";', 'const _q = "say \\"hi\\"";', 'export var A$ = [-3, n0, { [_e]: _c, [_q]: 1, [other]: 2, [_missing]: 3 }];'].join('\n');
    expect(literalSchemaTraitKeys(source)).toBe(
      ['const _e = "error";', 'const _q = "say \\"hi\\"";', 'export var A$ = [-3, n0, { "error": _c, "say \\"hi\\"": 1, [other]: 2, [_missing]: 3 }];'].join('\n'),
    );
  });

  it('finds the schema modules of the clients the handlers bundle', () => {
    const clients = schemaModules.map((path) => /client-[^\\/]+/.exec(path)?.[0]);
    expect(clients).toEqual(expect.arrayContaining(['client-dynamodb', 'client-sesv2', 'client-sns', 'client-sqs', 'client-pinpoint-sms-voice-v2']));
  });

  it.each(schemaModules.map((path) => [path.slice(SDK_ROOT.length + 1), path]))(
    '%s: every export and every registered error is the same, and no trait key is left computed',
    (_name, path) => {
      const original = readFileSync(path, 'utf8');
      const rewritten = literalSchemaTraitKeys(original);
      expect(rewritten).not.toBe(original);
      expect(rewritten).not.toMatch(/\[_\w+\]:/);
      const before = evaluate(original);
      const after = evaluate(rewritten);
      expect(Object.keys(after.exports)).toEqual(Object.keys(before.exports));
      for (const name of Object.keys(before.exports)) expect(same(before.exports[name], after.exports[name]), name).toBe(true);
      expect(same(before.registered, after.registered)).toBe(true);
      expect(after.registered.length).toBeGreaterThan(0);
    },
  );

  it('a sender cold start reads the SES v2 schemas of the calls it makes and none of the others', async () => {
    const sender = await buildBundle(DEFAULT_ENTRIES.sender, { withoutSdk: false });
    const startup = sender.files.filter((file) => sender.startupFiles.includes(file.name)).map((file) => Buffer.from(file.contents).toString('utf8')).join('\n');
    expect(startup).toContain('"/v2/email/outbound-emails"');
    expect(startup).toContain('"/v2/email/account"');
    expect(startup).not.toContain('BulkEmailEntry');
    expect(startup).not.toContain('DeliverabilityTestReport');
  });
});
