// dynalite ships no types; this covers the part the tests and local runner use.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    /** Folder for a persistent LevelDB store. @default in memory */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}
