import { describe, expect, it } from 'vitest';
import { withLanguage } from '../../../functions/core/templates/html-language';
import { idempotencyKey } from '../../../functions/core/event/idempotency-key';
import { isRightToLeft, LOCALE_MAX_LENGTH, localeChain, readLocale } from '../../../functions/core/event/recipient-locale';
import type { Template, TemplateVariant } from '../../../functions/core/templates/template-definition';
import { resolveTemplateLocale } from '../../../functions/core/templates/template-locale';

const variant: TemplateVariant = { sms: { text: 'x', maxSegments: 1 } };
const withLocales = (locale: string, ...translations: string[]): Pick<Template, 'locale' | 'translations'> => ({
  locale,
  translations: new Map(translations.map((tag) => [tag, variant])),
});

describe('a recipient\'s locale, as the event gives it', () => {
  it.each([
    ['de-AT', 'de-AT'],
    ['DE-at', 'de-AT'],
    ['zh-hant-tw', 'zh-Hant-TW'],
    ['iw', 'he'],
    ['en-US-u-ca-buddhist', 'en-US-u-ca-buddhist'],
  ])('canonicalises the well-formed %j to %j', (given, tag) => {
    expect(readLocale(given)).toEqual({ ok: true, tag });
  });

  it.each([['de_AT'], [''], ['x-private'], ['english please'], ['\ud800'], [42], [{ tag: 'de' }], [['de']], [true]])('reads %j as ill-formed, never throwing', (given) => {
    expect(readLocale(given)).toEqual({ ok: false, reason: 'ill-formed' });
  });

  it('reads no value (absent or null) as missing', () => {
    expect(readLocale(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(readLocale(null)).toEqual({ ok: false, reason: 'missing' });
  });

  it(`does not parse a value longer than ${LOCALE_MAX_LENGTH} characters, even a well-formed one`, () => {
    const long = `de-AT-u-${Array.from({ length: 20 }, () => 'ca-gregory').join('-')}`.slice(0, LOCALE_MAX_LENGTH + 1).replace(/-$/, 'x');
    expect(long.length).toBe(LOCALE_MAX_LENGTH + 1);
    expect(readLocale(long)).toEqual({ ok: false, reason: 'too-long' });
  });
});

describe('the chain of a tag: itself, then each shorter parent', () => {
  it.each([
    ['de-AT', ['de-AT', 'de']],
    ['zh-Hant-TW', ['zh-Hant-TW', 'zh-Hant', 'zh']],
    ['de-CH-1996', ['de-CH-1996', 'de-CH', 'de']],
    ['sr-Latn-RS-u-nu-latn', ['sr-Latn-RS-u-nu-latn', 'sr-Latn-RS', 'sr-Latn', 'sr']],
    ['fr', ['fr']],
  ])('%s → %j', (tag, chain) => {
    expect(localeChain(tag)).toEqual(chain);
  });
});

describe('which variant a recipient gets', () => {
  it('de-AT gets the de variant, walking de-AT → de, with values written in de-AT', () => {
    expect(resolveTemplateLocale(withLocales('en', 'de'), 'de-AT')).toEqual({ locale: 'de', formatLocale: 'de-AT', chain: ['de-AT', 'de'] });
  });

  it('an exact match is taken before its parent', () => {
    expect(resolveTemplateLocale(withLocales('en', 'de', 'de-AT'), 'de-AT')).toEqual({ locale: 'de-AT', formatLocale: 'de-AT', chain: ['de-AT'] });
  });

  it('zh-Hant-TW walks zh-Hant-TW → zh-Hant → zh', () => {
    expect(resolveTemplateLocale(withLocales('en', 'zh'), 'zh-Hant-TW').chain).toEqual(['zh-Hant-TW', 'zh-Hant', 'zh']);
    expect(resolveTemplateLocale(withLocales('en', 'zh-Hant', 'zh'), 'zh-Hant-TW').locale).toBe('zh-Hant');
  });

  it('fr-CA with no French gets the default, walking the whole chain, with the reason no-variant', () => {
    expect(resolveTemplateLocale(withLocales('en', 'de'), 'fr-CA')).toEqual({ locale: 'en', formatLocale: 'en', chain: ['fr-CA', 'fr', 'en'], fallback: 'no-variant' });
  });

  it('a tag whose chain reaches the default locale is no fallback: en-GB gets en, values written the British way', () => {
    expect(resolveTemplateLocale(withLocales('en', 'de'), 'en-GB')).toEqual({ locale: 'en', formatLocale: 'en-GB', chain: ['en-GB', 'en'] });
  });

  it('a template in German by default sends German to a recipient without a locale, counted as missing', () => {
    expect(resolveTemplateLocale(withLocales('de', 'en'), undefined)).toEqual({ locale: 'de', formatLocale: 'de', chain: ['de'], fallback: 'missing' });
  });

  it('an ill-formed tag gets the default with the reason ill-formed', () => {
    expect(resolveTemplateLocale(withLocales('en', 'de'), 'de_AT')).toEqual({ locale: 'en', formatLocale: 'en', chain: ['en'], fallback: 'ill-formed' });
  });
});

describe('the key never contains the locale', () => {
  it('is made of eventId, recipientId, channel and templateId only: the same message in any language has one key', () => {
    const identity = { eventId: 'evt-1', recipientId: 'r-1', channel: 'email' as const, templateId: 'order-shipped' };
    // The identity type has no place for a locale; a caller that passes one anyway changes nothing.
    expect(idempotencyKey({ ...identity, locale: 'de-AT' } as typeof identity)).toBe(idempotencyKey(identity));
    expect(idempotencyKey({ ...identity, locale: 'fr' } as typeof identity)).toBe(idempotencyKey(identity));
  });
});

describe('the HTML part says its language', () => {
  it('wraps a fragment in a div with lang', () => {
    expect(withLanguage('<p>Hallo</p>', 'de')).toBe('<div lang="de"><p>Hallo</p></div>');
  });

  it('adds lang and, for a right-to-left script, dir to the template\'s own <html> tag', () => {
    expect(withLanguage('<!doctype html><html><body>مرحبا</body></html>', 'ar')).toBe('<!doctype html><html lang="ar" dir="rtl"><body>مرحبا</body></html>');
    expect(withLanguage('<p>שלום</p>', 'he')).toBe('<div lang="he" dir="rtl"><p>שלום</p></div>');
  });

  it('keeps what the template says already', () => {
    expect(withLanguage('<HTML lang="de-AT" class="x"><body/></HTML>', 'de')).toBe('<HTML lang="de-AT" class="x"><body/></HTML>');
    expect(withLanguage('<html dir="ltr">x</html>', 'fa')).toBe('<html lang="fa" dir="ltr">x</html>');
  });

  it.each([
    ['ar', true],
    ['he', true],
    ['fa', true],
    ['ur', true],
    ['az-Latn', false],
    ['de', false],
    ['zh-Hant-TW', false],
  ])('%s runs right to left: %s', (tag, rtl) => {
    expect(isRightToLeft(tag)).toBe(rtl);
  });
});
