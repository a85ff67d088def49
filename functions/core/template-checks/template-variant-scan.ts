import { CHANNELS, type Channel } from '../event/idempotency-key';
import { UNSUBSCRIBE_URL_FIELD, VARIANT_PARTS, type TemplateVariant } from '../templates/template-definition';
import { scanPlaceholders, type TemplatePiece } from '../templates/template-placeholders';

/** A problem located inside one file (`sms.text`). */
export interface LocatedProblem {
  readonly path: string;
  readonly message: string;
}

/** What reading one variant's texts found. */
export interface VariantScan {
  readonly problems: readonly LocatedProblem[];
  /** The fields each channel's texts insert (SES's unsubscribe placeholder aside). */
  readonly fieldsByChannel: ReadonlyMap<Channel, ReadonlySet<string>>;
  /** False when a text could not be read: it may use any field, so a field's absence from it is no news. */
  readonly everyTextRead: boolean;
}

/**
 * Reads every text of one variant (a template file's own, or a translation's): each placeholder declared in
 * `fields`, no tag but `{{field}}`, and SES's unsubscribe link where a bulk template needs it and nowhere else.
 */
export function scanVariant(variant: TemplateVariant, fields: Readonly<Record<string, unknown>>, bulk: boolean | undefined): VariantScan {
  const problems: LocatedProblem[] = [];
  const fieldsByChannel = new Map<Channel, Set<string>>();
  let everyTextRead = true;
  for (const channel of CHANNELS) {
    const texts = variant[channel] as Readonly<Record<string, unknown>> | undefined;
    if (!texts) continue;
    const used = new Set<string>();
    fieldsByChannel.set(channel, used);
    for (const part of VARIANT_PARTS[channel]) {
      const text = texts[part];
      if (typeof text !== 'string') continue;
      const path = `${channel}.${part}`;
      const scan = scanPlaceholders(text);
      if (!scan.ok) {
        problems.push(...scan.problems.map((message) => ({ path, message })));
        everyTextRead = false;
        continue;
      }
      for (const field of scan.fields) {
        if (field === UNSUBSCRIBE_URL_FIELD) continue;
        used.add(field);
        if (!Object.hasOwn(fields, field)) problems.push({ path, message: `uses {{${field}}}, which is not declared in fields` });
      }
      problems.push(...unsubscribeLinkProblems(bulk, channel, part, scan.pieces).map((message) => ({ path, message })));
    }
  }
  return { problems, fieldsByChannel, everyTextRead };
}

/**
 * Where SES's unsubscribe link must and must not be. A bulk template's e-mail text and HTML each show it (CAN-SPAM
 * wants a working opt-out in the body; SES fills the placeholder only in those parts, at most twice each); no
 * other part has it (a subject or a text message would show it as written). A template that is not bulk has it
 * nowhere: its e-mail is sent without list management, so SES would leave the placeholder as written.
 */
function unsubscribeLinkProblems(bulk: boolean | undefined, channel: string, part: string, pieces: readonly TemplatePiece[]): string[] {
  const uses = pieces.filter((piece) => 'field' in piece && piece.field === UNSUBSCRIBE_URL_FIELD).length;
  const tag = `{{${UNSUBSCRIBE_URL_FIELD}}}`;
  const bodyPart = channel === 'email' && (part === 'text' || part === 'html');
  if (!bulk) return uses > 0 ? [`uses ${tag}, which only a bulk template ("bulk": true) may use: SES fills it only in list-managed e-mail`] : [];
  if (!bodyPart) return uses > 0 ? [`uses ${tag}; SES fills it only in an e-mail's text and HTML`] : [];
  if (uses === 0) return [`a bulk template's e-mail ${part} must show the unsubscribe link ${tag} (SES fills it with the contact's one-click unsubscribe URL)`];
  return uses > 2 ? [`uses ${tag} ${uses} times; SES fills only the first two`] : [];
}
