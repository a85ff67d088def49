/**
 * What `npm start` prints when it exits after the summary: the pages close with it, and how to keep them open.
 * Without a terminal (`npm start | cat`, a background job) exiting is the default, and a reader who opens the
 * mailbox address afterwards finds nothing there; this line says why and what to run instead.
 */
export function closingNote({ stdoutIsTerminal }: { readonly stdoutIsTerminal: boolean }): string {
  const why = stdoutIsTerminal ? 'as --no-keep-open asks' : 'stdout is not a terminal, so the run does not wait for Ctrl-C';
  return `The pages above are closed now (${why}). To keep them open after the summary: npm start -- --keep-open (stop with Ctrl-C).`;
}
