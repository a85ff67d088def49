import { isRightToLeft } from '../event/recipient-locale';

/** The opening `<html ...>` tag of a document, attributes and all (attribute values hold no `>` in a template's own markup). */
const HTML_TAG = /<html\b[^>]*>/i;
const HAS_LANG = /\slang\s*=/i;
const HAS_DIR = /\sdir\s*=/i;

/**
 * The HTML part with its language said: `lang` (and `dir="rtl"` for a right-to-left script) on the template's own
 * `<html>` tag when it has one and does not say them already, else on a `<div>` around the whole part. Screen
 * readers pick their voice by `lang`, and an Arabic or Hebrew e-mail is laid out right to left only with `dir`.
 * `locale` is a canonical tag (it holds no character HTML would need escaped). Pure.
 */
export function withLanguage(html: string, locale: string): string {
  const rtl = isRightToLeft(locale);
  const tag = HTML_TAG.exec(html);
  if (tag) {
    const attributes = `${HAS_LANG.test(tag[0]) ? '' : ` lang="${locale}"`}${rtl && !HAS_DIR.test(tag[0]) ? ' dir="rtl"' : ''}`;
    const at = tag.index + '<html'.length;
    return html.slice(0, at) + attributes + html.slice(at);
  }
  return `<div lang="${locale}"${rtl ? ' dir="rtl"' : ''}>${html}</div>`;
}
