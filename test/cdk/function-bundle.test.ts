import { describe, expect, it } from 'vitest';
import { loadEsbuild } from '../../lib/function-bundle';

describe('bundling a handler at synth', () => {
  it('says what to install when the app has no esbuild', () => {
    const missing = Object.assign(new Error("Cannot find module 'esbuild'"), { code: 'MODULE_NOT_FOUND' });
    const load = () => {
      throw missing;
    };
    expect(() => loadEsbuild(load)).toThrow(/esbuild is not installed: add it to your app \(npm install --save-dev esbuild\)/);
    try {
      loadEsbuild(load);
    } catch (error) {
      expect((error as Error).cause).toBe(missing);
    }
  });

  it("loads the app's esbuild when there is one", () => {
    expect(typeof loadEsbuild().buildSync).toBe('function');
  });
});
