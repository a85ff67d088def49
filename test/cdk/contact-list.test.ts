import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../functions/core/sender-config';
import { errorOf, logicalId, propertiesOf, synth } from './helpers';

const environmentOf = (s: ReturnType<typeof synth>, which: 'senderFunction' | 'reclaimerFunction' = 'senderFunction') =>
  (propertiesOf(s.template, s.stack.notifier[which])['Environment'] as { Variables: Record<string, unknown> }).Variables;

describe('the SES contact list of bulk e-mail', () => {
  const defaults = synth();

  it('is created with one topic per bulk class (marketing), opted in by default, and kept on delete except when its creation rolls back', () => {
    defaults.template.hasResource('AWS::SES::ContactList', {
      Properties: {
        ContactListName: 'notifier',
        Topics: [{ TopicName: 'marketing', DisplayName: 'marketing', Description: 'Bulk messages of class marketing', DefaultSubscriptionStatus: 'OPT_IN' }],
      },
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('is named to the sender and the reclaimer, which exist only once the list does', () => {
    for (const which of ['senderFunction', 'reclaimerFunction'] as const) {
      expect(environmentOf(defaults, which)).toMatchObject({ [ENV.sesContactListName]: 'notifier', [ENV.quietHoursTimeZone]: 'UTC' });
      expect(environmentOf(defaults, which)).not.toHaveProperty(ENV.sesTopicPrefix);
    }
    const functions = defaults.template.findResources('AWS::Lambda::Function') as Record<string, { DependsOn?: string[] }>;
    for (const fn of [defaults.stack.notifier.senderFunction, defaults.stack.notifier.reclaimerFunction]) {
      expect(functions[logicalId(fn)]?.DependsOn).toEqual(expect.arrayContaining([logicalId(defaults.stack.notifier.contactList!)]));
    }
  });

  it('a second stack of the account shares the list: its own topic prefix, the list and its topics created by the first', () => {
    const owner = synth({ contactList: { topicPrefix: 'shop-', additionalTopics: ['news-marketing'] } });
    owner.template.hasResourceProperties('AWS::SES::ContactList', {
      Topics: [Match.objectLike({ TopicName: 'shop-marketing' }), Match.objectLike({ TopicName: 'news-marketing' })],
    });
    const second = synth({ contactList: { create: false, topicPrefix: 'news-' }, quietHoursTimeZone: 'America/New_York' });
    second.template.resourceCountIs('AWS::SES::ContactList', 0);
    expect(environmentOf(second)).toMatchObject({
      [ENV.sesContactListName]: 'notifier',
      [ENV.sesTopicPrefix]: 'news-',
      [ENV.quietHoursTimeZone]: 'America/New_York',
    });
  });

  it('fails at synth past SES\'s 20 topics per list, on topics that repeat, and on a zone that is not one', () => {
    const many = Array.from({ length: 20 }, (_, i) => `other-${i}`);
    expect(errorOf({ contactList: { additionalTopics: many } })).toMatch(/the contact list would have 21 topics .*SES allows 20 per list, and one list per account/);
    expect(errorOf({ contactList: { additionalTopics: ['marketing'] } })).toMatch(/the contact list's topics repeat \(marketing, marketing\): give each stack its own topicPrefix/);
    expect(errorOf({ contactList: { create: false, additionalTopics: ['x'] } })).toMatch(/additionalTopics needs create: true/);
    expect(errorOf({ quietHoursTimeZone: 'Mars/Olympus' })).toMatch(/quietHoursTimeZone \("Mars\/Olympus"\) must be an IANA time zone/);
  });
});
