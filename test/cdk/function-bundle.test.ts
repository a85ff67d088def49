import { describe, expect, it } from 'vitest';
import { resolveEsbuild } from '../../lib/function-bundle';

describe('bundling a handler at synth', () => {
  it('says what to install when the app has no esbuild', () => {
    const missing = Object.assign(new Error("Cannot find module 'esbuild'"), { code: 'MODULE_NOT_FOUND' });
    const resolve = () => {
      throw missing;
    };
    expect(() => resolveEsbuild(resolve)).toThrow(/esbuild is not installed: add it to your app \(npm install --save-dev esbuild\)/);
    try {
      resolveEsbuild(resolve);
    } catch (error) {
      expect((error as Error).cause).toBe(missing);
    }
  });

  it("finds the app's esbuild when there is one", () => {
    expect(resolveEsbuild()).toMatch(/[\\/]node_modules[\\/]esbuild[\\/]/);
  });
});
