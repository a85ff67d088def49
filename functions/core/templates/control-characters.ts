/**
 * Control characters in message text, decided per message and per part rather than at the door: a line break is
 * fine in an SMS or an e-mail body and wrong only in a one-line part, and the same data field may fill both
 * (order-shipped's `orderId` is in the e-mail subject and the SMS text). So only the message whose part cannot
 * carry the character fails, with its reason, and the event's other messages are sent.
 */

/** The parts shown on one line: an e-mail subject is a mail header (a line break in it is header injection), a push title one line. */
const ONE_LINE_PARTS: ReadonlySet<string> = new Set(['subject', 'title']);

/** Any control character (Unicode category Cc: U+0000-U+001F and U+007F-U+009F). */
const ANY_CONTROL = /\p{Cc}/u;
/** A control character other than the tab and line breaks a body is written with. */
const CONTROL_BUT_TAB_AND_LINE_BREAKS = /(?![\t\n\r])\p{Cc}/u;

/** The first control character of `value` that `part` (`subject`, `text`, `title`, ...) cannot carry, as `U+000A`; none if it can carry them all. */
export function refusedControlCharacter(value: string, part: string): string | undefined {
  const found = (ONE_LINE_PARTS.has(part) ? ANY_CONTROL : CONTROL_BUT_TAB_AND_LINE_BREAKS).exec(value)?.[0];
  return found === undefined ? undefined : `U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}
