/** The generated tables of docs/scale.md sit between `<!-- table:NAME -->` and `<!-- /table:NAME -->`. */
const MARKED = /<!-- table:([a-z-]+) -->\n[\s\S]*?\n<!-- \/table:\1 -->/g;

/** The page with each marked table replaced by the one of that name; fails on a marker with no table. */
export function replaceTables(page: string, tables: Readonly<Record<string, string>>): string {
  return page.replace(MARKED, (_, name: string) => {
    const text = tables[name];
    if (text === undefined) throw new Error(`docs/scale.md marks a table "${name}" the model does not make`);
    return `<!-- table:${name} -->\n${text}\n<!-- /table:${name} -->`;
  });
}

/** The names of the tables the page marks, in order. */
export function markedTables(page: string): string[] {
  return [...page.matchAll(MARKED)].map((m) => m[1] ?? '');
}
