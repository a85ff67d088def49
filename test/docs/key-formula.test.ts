import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Lexer, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import { CHANNELS, type Channel, idempotencyKey } from '../../functions/core/event/idempotency-key';

/** The code blocks of docs/design/event.md's "The idempotency key" section, in order. */
function keySectionCode(): Tokens.Code[] {
  const tokens = Lexer.lex(readFileSync(new URL('../../docs/design/event.md', import.meta.url), 'utf8'));
  const start = tokens.findIndex((t) => t.type === 'heading' && (t as Tokens.Heading).text === 'The idempotency key');
  const end = tokens.findIndex((t, i) => i > start && t.type === 'heading' && (t as Tokens.Heading).depth <= 2);
  return tokens.slice(start, end).filter((t): t is Tokens.Code => t.type === 'code');
}

function workedExample(): Record<string, string> {
  const block = keySectionCode().find((c) => c.lang === 'text' && /^eventId\s/m.test(c.text));
  if (!block) throw new Error('docs/design/event.md: no worked example (a ```text block) under "The idempotency key"');
  return Object.fromEntries(block.text.split('\n').map((line) => line.split(/\s+/, 2) as [string, string]));
}

describe('docs/design/event.md: the idempotency key as documented', () => {
  it('gives the worked example\'s key, as the code computes it', () => {
    const example = workedExample();
    expect(CHANNELS).toContain(example.channel);
    const key = idempotencyKey({
      eventId: example.eventId ?? '',
      recipientId: example.recipientId ?? '',
      channel: example.channel as Channel,
      templateId: example.templateId ?? '',
    });
    expect(key).toBe(example.key);
    // Pinned here as well: a change of the key's material must be a change of this test and of the docs.
    expect(key).toBe('4c0547d84bc5428b14d62ca39eb51155c038cadb58387428eaed2d0a0e6bff57');
  });

  it('has a by-hand command that prints the code\'s key for the example and for any other message', () => {
    const command = keySectionCode().find((c) => c.lang === 'bash');
    const match = command && /^node -e '([^']+)' (.+)$/s.exec(command.text.trim());
    expect(match, 'a `node -e \'...\' args` block').toBeTruthy();
    const [, script = '', args = ''] = match ?? [];
    const byHand = (fields: readonly string[]): string => execFileSync(process.execPath, ['-e', script, ...fields], { encoding: 'utf8' }).trim();
    expect(byHand(args.split(' '))).toBe(workedExample().key);
    const other = { eventId: 'evt "quoted", ünïcode', recipientId: 'r-1', channel: 'sms', templateId: 'login-code' } as const;
    expect(byHand([other.eventId, other.recipientId, other.channel, other.templateId])).toBe(idempotencyKey(other));
  });
});
