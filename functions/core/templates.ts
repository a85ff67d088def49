import type { Channel } from './idempotency-key';

/** Per-channel content of one template. `{{field}}` placeholders are filled from event `data`. */
export interface Template {
  readonly email?: { readonly subject: string; readonly text: string; readonly html?: string };
  readonly sms?: { readonly text: string };
  readonly push?: { readonly title: string; readonly text: string };
}

export type TemplateRegistry = ReadonlyMap<string, Template>;

/** Templates shipped with the product; a deployment replaces or extends this map. */
export const BUILT_IN_TEMPLATES: TemplateRegistry = new Map<string, Template>([
  [
    'order-shipped',
    {
      email: {
        subject: 'Your order {{orderId}} has shipped',
        text: 'Good news: order {{orderId}} is on its way with {{carrier}}. Track it with {{trackingNumber}}.',
      },
      sms: { text: 'Order {{orderId}} shipped with {{carrier}}, tracking {{trackingNumber}}.' },
      push: { title: 'Order shipped', text: 'Order {{orderId}} is on its way.' },
    },
  ],
  [
    'order-sold',
    {
      email: {
        subject: 'You sold item {{itemId}}',
        text: 'Order {{orderId}} includes your item {{itemId}}. Please ship it within {{shipWithinDays}} days.',
      },
      push: { title: 'Item sold', text: 'Order {{orderId}}: ship item {{itemId}}.' },
    },
  ],
  [
    'login-code',
    {
      email: { subject: 'Your sign-in code', text: 'Your sign-in code is {{code}}. It expires in {{expiresInMinutes}} minutes.' },
      sms: { text: 'Your sign-in code is {{code}}. It expires in {{expiresInMinutes}} minutes.' },
    },
  ],
  [
    'weekly-offers',
    {
      email: { subject: 'This week: {{headline}}', text: '{{headline}}. See all offers at {{url}}.' },
      push: { title: 'New offers', text: '{{headline}}' },
    },
  ],
]);

export type TemplateValue = string | number | boolean | null;

export type RenderResult =
  | { readonly ok: true; readonly content: Record<string, string> }
  | { readonly ok: false; readonly reason: string };

/**
 * Renders the template's variant for `channel`. A missing template, channel variant or
 * data field is a permanent failure with a reason; nothing is rendered as an empty string.
 * Hand-written: strict missing-field detection and no logic in templates in ~20 lines,
 * which mustache-style libraries only give with options and extra weight.
 */
export function renderTemplate(
  templates: TemplateRegistry,
  templateId: string,
  channel: Channel,
  data: Readonly<Record<string, TemplateValue>>,
): RenderResult {
  const template = templates.get(templateId);
  if (!template) return { ok: false, reason: `MissingTemplate: no template "${templateId}"` };
  const variant = template[channel];
  if (!variant) return { ok: false, reason: `MissingTemplate: template "${templateId}" has no ${channel} variant` };
  const content: Record<string, string> = {};
  for (const [part, text] of Object.entries(variant)) {
    if (typeof text !== 'string') continue;
    const missing = new Set<string>();
    content[part] = text.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (_match, field: string) => {
      const value = Object.hasOwn(data, field) ? data[field] : undefined;
      if (value === undefined || value === null) {
        missing.add(field);
        return '';
      }
      return String(value);
    });
    if (missing.size > 0) {
      return { ok: false, reason: `MissingTemplateField: template "${templateId}" needs ${[...missing].join(', ')}` };
    }
  }
  return { ok: true, content };
}
