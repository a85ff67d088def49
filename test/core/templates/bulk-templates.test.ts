import { describe, expect, it } from 'vitest';
import { templateAudienceProblem } from '../../../functions/core/policy/consent';
import { buildMessageClassRegistry } from '../../../functions/core/policy/message-class';
import type { NotificationEvent } from '../../../functions/core/event/notification-event';
import type { TemplateFile } from '../../../functions/core/templates/template-definition';
import { buildTemplateRegistry, checkTemplateFiles } from '../../../functions/core/template-checks/template-registry';
import { renderTemplate } from '../../../functions/core/templates/templates';
import { planMessages } from '../../../functions/delivery/message-plan';

const file = (content: unknown, name = 'offers.json'): TemplateFile => ({ name, text: JSON.stringify(content) });
const problemsOf = (content: unknown) => checkTemplateFiles([file(content)]).problems.map((p) => `${p.path}: ${p.message}`);
const LINK = '{{amazonSESUnsubscribeUrl}}';
const bulk = (email: Record<string, string>) => ({ bulk: true, fields: { deal: { maxLength: 40 } }, email: { subject: 'Deal: {{deal}}', ...email } });

describe('what a bulk template must contain', () => {
  it('a bulk e-mail shows the unsubscribe link in its text and its HTML, without declaring it', () => {
    expect(problemsOf(bulk({ text: `{{deal}} ${LINK}`, html: `<p>{{deal}}</p><a href="${LINK}">Unsubscribe</a>` }))).toEqual([]);
  });

  it('fails if the text or the HTML of a bulk e-mail has no link', () => {
    expect(problemsOf(bulk({ text: '{{deal}}', html: `<p>{{deal}}</p><a href="${LINK}">x</a>` }))).toEqual([
      "email.text: a bulk template's e-mail text must show the unsubscribe link {{amazonSESUnsubscribeUrl}} (SES fills it with the contact's one-click unsubscribe URL)",
    ]);
    expect(problemsOf(bulk({ text: `{{deal}} ${LINK}`, html: '<p>{{deal}}</p>' }))).toEqual([
      "email.html: a bulk template's e-mail html must show the unsubscribe link {{amazonSESUnsubscribeUrl}} (SES fills it with the contact's one-click unsubscribe URL)",
    ]);
  });

  it('fails if the link is in the subject, used three times, or declared as a field', () => {
    expect(problemsOf({ ...bulk({ text: `{{deal}} ${LINK}` }), email: { subject: `{{deal}} ${LINK}`, text: `{{deal}} ${LINK}` } })).toEqual([
      'email.subject: uses {{amazonSESUnsubscribeUrl}}; SES fills it only in an e-mail\'s text and HTML',
    ]);
    expect(problemsOf(bulk({ text: `{{deal}} ${LINK} ${LINK} ${LINK}` }))).toEqual(['email.text: uses {{amazonSESUnsubscribeUrl}} 3 times; SES fills only the first two']);
    expect(problemsOf({ ...bulk({ text: `{{deal}} ${LINK}` }), fields: { deal: { maxLength: 40 }, amazonSESUnsubscribeUrl: { maxLength: 10 } } })).toContain(
      "fields.amazonSESUnsubscribeUrl: is SES's placeholder for the unsubscribe URL, not a data field: remove the declaration",
    );
  });

  it('fails if a template that is not bulk uses the link (it would show as written), or a text message does', () => {
    expect(problemsOf({ fields: { deal: { maxLength: 40 } }, email: { subject: 'S {{deal}}', text: `T ${LINK}` } })).toEqual([
      'email.text: uses {{amazonSESUnsubscribeUrl}}, which only a bulk template ("bulk": true) may use: SES fills it only in list-managed e-mail',
    ]);
    expect(problemsOf({ ...bulk({ text: `{{deal}} ${LINK}` }), sms: { text: `{{deal}} ${LINK}` } })).toEqual([
      "sms.text: uses {{amazonSESUnsubscribeUrl}}; SES fills it only in an e-mail's text and HTML",
    ]);
  });
});

describe('rendering and sending a bulk template', () => {
  const templates = buildTemplateRegistry([file(bulk({ text: `{{deal}}: ${LINK}`, html: `<p>{{deal}}</p><a href="${LINK}">Unsubscribe</a>` }))]);

  it('leaves the link for SES, in text and HTML, and needs no data for it', () => {
    expect(renderTemplate(templates, 'offers', 'email', { deal: 'Two for one' })).toEqual({
      ok: true,
      content: { channel: 'email', subject: 'Deal: Two for one', text: `Two for one: ${LINK}`, html: `<div lang="en"><p>Two for one</p><a href="${LINK}">Unsubscribe</a></div>` },
    });
  });

  it('a bulk class needs a bulk template and a class that is not bulk must not use one (e-mail: the link)', () => {
    const classes = buildMessageClassRegistry();
    expect(templateAudienceProblem(classes.get('marketing')!, { id: 'order-shipped' })).toMatch(/^NotBulkTemplate: class marketing is bulk/);
    expect(templateAudienceProblem(classes.get('transactional')!, { id: 'offers', bulk: true })).toMatch(/^BulkTemplate: template "offers" is for bulk classes/);
    expect(templateAudienceProblem(classes.get('marketing')!, { id: 'offers', bulk: true })).toBeUndefined();
  });

  it('a transactional e-mail from a bulk template fails that message, naming class and template; its text message would not', () => {
    const event: NotificationEvent = {
      eventId: 'evt-1',
      occurredAt: '2026-11-29T12:00:00Z',
      type: 'Offer',
      templateId: 'offers',
      messageClass: 'transactional',
      data: { deal: 'x' },
      recipients: [{ recipientId: 'r', email: 'a@example.com', channels: ['email'] }],
    };
    const [plan] = planMessages(event, buildMessageClassRegistry().get('transactional')!, templates);
    expect(plan?.prepared).toEqual({ ok: false, reason: 'BulkTemplate: template "offers" is for bulk classes; class transactional is never unsubscribable' });
  });
});
