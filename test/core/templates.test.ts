import { describe, expect, it } from 'vitest';
import { BUILT_IN_TEMPLATES, renderTemplate } from '../../functions/core/templates';

describe('templates', () => {
  it('renders a channel variant from event data', () => {
    expect(renderTemplate(BUILT_IN_TEMPLATES, 'login-code', 'sms', { code: '123456', expiresInMinutes: 5 })).toEqual({
      ok: true,
      content: { text: 'Your sign-in code is 123456. It expires in 5 minutes.' },
    });
  });

  it('treats null and missing fields alike: a permanent failure naming the fields, never an empty string', () => {
    expect(renderTemplate(BUILT_IN_TEMPLATES, 'order-shipped', 'email', { orderId: '1', carrier: null })).toEqual({
      ok: false,
      reason: 'MissingTemplateField: template "order-shipped" needs carrier, trackingNumber',
    });
  });

  it('does not read inherited properties as data', () => {
    expect(renderTemplate(new Map([['t', { sms: { text: '{{constructor}}' } }]]), 't', 'sms', {}).ok).toBe(false);
  });
});
