import type { CheckedTemplate } from './template-registry';

/**
 * What a set of valid templates costs that is not a problem, said at synth and by `templates check`: each
 * translation whose SMS needs UCS-2 (70 characters in one part, 67 a part when split) where its default's is
 * GSM-7 (160/153). Polish, Greek or Japanese texts do: their letters are outside GSM 03.38, so the same message
 * takes more parts, each billed. Within the variant's `maxSegments` (checked), but worth knowing before a deploy.
 */
export function smsEncodingNotes(templates: readonly CheckedTemplate[]): string[] {
  return templates.flatMap(({ template, figures, translationFigures }) =>
    figures.sms?.encoding !== 'GSM-7'
      ? []
      : [...(translationFigures ?? [])].flatMap(([locale, own]) =>
          own.sms?.encoding === 'UCS-2'
            ? [
                `${template.id} ${locale}: the SMS text needs UCS-2 (70 characters in one part, 67 a part when split; GSM-7 has 160/153), ` +
                  `up to ${own.sms.segments} part${own.sms.segments === 1 ? '' : 's'} of the ${own.sms.maxSegments} allowed ` +
                  `(the default locale's: ${figures.sms!.segments}, GSM-7)`,
              ]
            : [],
        ),
  );
}
