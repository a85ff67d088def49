/**
 * Longest `locale` an event's recipient may give that is read as a tag (UTF-16 code units). RFC 5646 asks
 * implementations to handle at least 35 characters (section 4.4.1, "Working with Limited Buffer Sizes");
 * 64 leaves room for a Unicode extension (`de-AT-u-nu-latn-ca-gregory`). A longer value is not parsed at
 * all: the message goes out in the template's default locale, counted as `too-long`.
 */
export const LOCALE_MAX_LENGTH = 64;

/**
 * Why a message went out in its template's default locale (the `reason` of `LocaleFallback`):
 * - `missing`: the recipient gave no `locale`;
 * - `ill-formed`: not a BCP 47 tag (not a string, `de_AT`, empty, a lone surrogate ...);
 * - `too-long`: longer than {@link LOCALE_MAX_LENGTH};
 * - `no-variant`: a well-formed tag, but neither it nor any of its parents has a variant (`fr-CA`, no French).
 */
export type LocaleFallbackReason = 'missing' | 'ill-formed' | 'too-long' | 'no-variant';

/** A recipient's `locale` as read: a canonical tag, or why it is none. */
export type RequestedLocale =
  | { readonly ok: true; readonly tag: string }
  | { readonly ok: false; readonly reason: Exclude<LocaleFallbackReason, 'no-variant'> };

/**
 * Reads a recipient's `locale`, whatever the event holds there: a well-formed BCP 47 tag comes back in its
 * canonical form (`Intl.getCanonicalLocales`: `DE-at` → `de-AT`, `iw` → `he`); anything else is a reason,
 * never an error, since a message is never refused for its language tag. Pure.
 */
export function readLocale(value: unknown): RequestedLocale {
  if (value === undefined || value === null) return { ok: false, reason: 'missing' };
  if (typeof value !== 'string') return { ok: false, reason: 'ill-formed' };
  if (value.length > LOCALE_MAX_LENGTH) return { ok: false, reason: 'too-long' };
  const tag = canonicalLocale(value);
  return tag === undefined ? { ok: false, reason: 'ill-formed' } : { ok: true, tag };
}

/** The canonical form of `tag`, or undefined when it is not a well-formed BCP 47 language tag. */
export function canonicalLocale(tag: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    // A private-use-only tag (`x-foo`) is refused by Intl already; a grandfathered one maps to its preferred value.
    return canonical;
  } catch {
    return undefined;
  }
}

/**
 * The tags tried for a canonical `tag`, most specific first: the tag itself, then its base name (the tag without
 * its extensions: `de-AT-u-nu-latn` → `de-AT`), then each shorter parent, one subtag dropped at a time
 * (`zh-Hant-TW` → `zh-Hant` → `zh`; `de-CH-1996` → `de-CH` → `de`). The template's default locale, where
 * every chain ends, is not in it. Pure.
 */
export function localeChain(tag: string): readonly string[] {
  const chain = [tag];
  const base = new Intl.Locale(tag).baseName;
  const subtags = base.split('-');
  for (let length = subtags.length; length >= 1; length -= 1) {
    const parent = subtags.slice(0, length).join('-');
    if (!chain.includes(parent)) chain.push(parent);
  }
  return chain;
}

type TextInfoLocale = Intl.Locale & { getTextInfo?: () => { direction?: string }; textInfo?: { direction?: string } };

/**
 * Whether text in the canonical `tag` runs right to left (`ar`, `he`, `fa`, `ur`; not `az-Latn`), from the platform's
 * CLDR data: `Intl.Locale#getTextInfo()` (Node.js 24), or the `textInfo` accessor that Node.js 22 has instead.
 */
export function isRightToLeft(tag: string): boolean {
  const locale = new Intl.Locale(tag) as TextInfoLocale;
  return (locale.getTextInfo?.().direction ?? locale.textInfo?.direction) === 'rtl';
}
