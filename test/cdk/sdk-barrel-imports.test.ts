import { describe, expect, it } from 'vitest';
import { declaredSideEffectFree, reexportsOf, withoutBarrels, type DefinitionFinder } from '../../lib/bundle-child-process';

describe("the bundling's SDK imports taken where each name is defined (lib/bundle-child-process.ts sdkModulesPlugin)", () => {
  it("reads a module's re-exports by name, as tsc writes the SDK's, and nothing else as one", () => {
    const barrel = reexportsOf('export { collectBody } from "./collect-stream-body";\nexport { HttpRequest as Request, isValidHostname, } from "@smithy/core/transport";\n');
    expect([...barrel]).toEqual([
      ['collectBody', { from: './collect-stream-body', name: 'collectBody' }],
      ['Request', { from: '@smithy/core/transport', name: 'HttpRequest' }],
      ['isValidHostname', { from: '@smithy/core/transport', name: 'isValidHostname' }],
    ]);
    const partly = reexportsOf('export { a } from "./a";\nimport { b } from "./b";\nexport const c = b();\nexport { b };\n');
    expect([...partly.keys()]).toEqual(['a']);
  });

  it("passes a module only where its package's sideEffects says it has none, read as bundlers read the list", () => {
    expect(declaredSideEffectFree(false, 'dist-es/submodules/serde/index.js')).toBe(true);
    expect(declaredSideEffectFree(undefined, 'dist-es/index.js')).toBe(false);
    expect(declaredSideEffectFree(true, 'dist-es/index.js')).toBe(false);
    const awsCore = ['./dist-es/submodules/client/util-endpoints/aws.js', './dist-cjs/submodules/client/util-endpoints/aws.js'];
    expect(declaredSideEffectFree(awsCore, 'dist-es/submodules/httpAuthSchemes/index.js')).toBe(true);
    expect(declaredSideEffectFree(awsCore, 'dist-es/submodules/client/util-endpoints/aws.js')).toBe(false);
    expect(declaredSideEffectFree(['./dist-es/*.js'], 'dist-es/index.js'), 'a glob: not read, so not trusted').toBe(false);
    expect(declaredSideEffectFree(['aws.js'], 'dist-es/submodules/client/util-endpoints/aws.js'), 'no slash: a file name at any depth').toBe(false);
    expect(declaredSideEffectFree(['dist-es/submodules/client/util-endpoints/aws.js'], 'dist-es/submodules/client/util-endpoints/aws.js'), 'no ./').toBe(false);
    expect(declaredSideEffectFree(['aws.js'], 'dist-es/index.js')).toBe(true);
  });

  it('writes each named import and re-export from the module that defines the name, grouped by module, and leaves a statement it cannot place whole', async () => {
    const definitions: Record<string, { path: string; name: string }> = {
      'barrel:a': { path: '/sdk/a.js', name: 'a' },
      'barrel:b': { path: '/sdk/b.js', name: 'realB' },
      'barrel:c': { path: '/sdk/a.js', name: 'c' },
    };
    const find: DefinitionFinder = async (from, name) => definitions[`${from}:${name}`];
    const source = [
      'import { a, b as bee, } from "barrel";',
      'import {\n    c,\n} from "barrel";',
      'export { b } from "barrel";',
      'import { a, unknown } from "barrel";',
      'import * as whole from "barrel";',
      'export const x = 1;',
    ].join('\n');
    expect(await withoutBarrels(source, '/sdk/importer.js', find)).toBe(
      [
        'import { a } from "/sdk/a.js";\nimport { realB as bee } from "/sdk/b.js";',
        'import { c } from "/sdk/a.js";',
        'export { realB as b } from "/sdk/b.js";',
        'import { a, unknown } from "barrel";',
        'import * as whole from "barrel";',
        'export const x = 1;',
      ].join('\n'),
    );
  });
});
