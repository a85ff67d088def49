import { FIELD_NAME } from './template-definition';

/** A template text read into literal text and the fields inserted between it. */
export type TemplatePiece = { readonly text: string } | { readonly field: string };

/** What reading one template text found: its pieces and the fields it inserts (in order of first use), or why it is refused. */
export type PlaceholderScan =
  | { readonly ok: true; readonly pieces: readonly TemplatePiece[]; readonly fields: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Mustache tags with no place in a notification template, by the character after `{{`, and what to write instead. */
const REFUSED_TAGS: Readonly<Record<string, string>> = {
  '{': 'inserts the value unescaped ({{{x}}} or {{&x}}); use {{x}}: HTML variants escape it, text variants never do',
  '&': 'inserts the value unescaped ({{{x}}} or {{&x}}); use {{x}}: HTML variants escape it, text variants never do',
  '#': 'is a section; templates hold no logic: only {{field}} placeholders',
  '^': 'is an inverted section; templates hold no logic: only {{field}} placeholders',
  '/': 'closes a section; templates hold no logic: only {{field}} placeholders',
  '>': 'is a partial; templates hold no logic: only {{field}} placeholders',
  '=': 'changes the delimiters; only {{ }} is used',
};

/**
 * Reads a template text: `{{field}}` (spaces inside allowed) inserts a field, `{{! ... }}` is a comment
 * and is dropped; every other mustache tag is refused, here, at synth and at cold start, rather than at
 * the first send. Hand-written rather than mustache.js (7 KB of the sender's 150 KB bundle budget): with
 * nothing but plain placeholders allowed there is nothing else for a template engine to do, and the tests
 * check the result against mustache.js rendering the same text.
 */
export function scanPlaceholders(text: string): PlaceholderScan {
  const pieces: TemplatePiece[] = [];
  const fields: string[] = [];
  const problems: string[] = [];
  let at = 0;
  for (let open = text.indexOf('{{', at); open >= 0; open = text.indexOf('{{', at)) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: open is never before at, so this only skips an empty text piece, which renders to nothing (text pieces are not escaped; SMS parts are counted on the rendered text)
    if (open > at) pieces.push({ text: text.slice(at, open) });
    const sigil = text.charAt(open + 2);
    const closing = sigil === '{' ? '}}}' : '}}';
    const close = text.indexOf(closing, open + 2);
    if (close === -1) {
      problems.push(`the tag at character ${open} is never closed (${closing})`);
      at = text.length;
      break;
    }
    at = close + closing.length;
    const tag = text.slice(open, at);
    const refused = REFUSED_TAGS[sigil];
    if (refused) {
      problems.push(`the tag ${tag} at character ${open} ${refused}`);
    } else if (sigil !== '!') {
      const field = text.slice(open + 2, close).trim();
      if (!FIELD_NAME.test(field)) {
        problems.push(`the tag ${tag} at character ${open} is not a placeholder: a field name is letters, digits and _ (not first)`);
      } else {
        pieces.push({ field });
        if (!fields.includes(field)) fields.push(field);
      }
    }
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: at is never past the end, so this only skips an empty text piece, which renders to nothing (as above)
  if (at < text.length) pieces.push({ text: text.slice(at) });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, pieces, fields };
}

/** What mustache.js escapes in an HTML value, with the same entities. */
const HTML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '/': '&#x2F;',
  '`': '&#x60;',
  '=': '&#x3D;',
};

/** `value` made safe to insert in HTML text and in quoted or unquoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`=/]/g, (c) => HTML_ENTITIES[c] ?? c);
}

/** The pieces with each field's value inserted (escaped for HTML when `html`); every field must be in `values`. */
export function fillPlaceholders(pieces: readonly TemplatePiece[], values: Readonly<Record<string, string>>, html: boolean): string {
  // Stryker disable next-line StringLiteral: never read: renderTemplate refuses a missing field before it fills (the fallback is for the type)
  const valueOf = (field: string): string => values[field] ?? '';
  return pieces.map((piece) => ('text' in piece ? piece.text : insert(valueOf(piece.field), html))).join('');
}

const insert = (value: string, html: boolean) => (html ? escapeHtml(value) : value);
