/** The `mutate` globs of stryker.config.mjs: the code mutation testing covers. */
export declare const MUTATE_SCOPE: readonly string[];
/** A Stryker `mutate` glob as a regular expression (`**` any folders, `*` within one name). */
export declare function globToRegExp(glob: string): RegExp;
/** The files, of those given, that mutation testing covers. */
export declare function coveredFiles(files: readonly string[], globs?: readonly string[]): string[];
