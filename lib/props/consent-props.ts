/**
 * Consent for bulk classes (functions/core/policy/consent.ts): the SES contact list their e-mail is sent with
 * (`ListManagementOptions`) and the zone quiet hours fall back to. Resolved and validated by
 * `resolveConsent` and `consentViolations` (lib/notifier-consent.ts).
 */
export interface ConsentProps {
  /**
   * The account's SES contact list, which SES's subscription management (one-click `List-Unsubscribe`, the
   * hosted unsubscribe page, refusing later sends to a contact who unsubscribed) works on. SES allows one
   * contact list per account and region, with at most 20 topics; this stack's bulk classes are its topics,
   * each named `topicPrefix` + the class name.
   * @default - a list named `notifier` is created, with one topic per bulk class and no prefix
   */
  readonly contactList?: ContactListOptions;
  /**
   * The zone quiet hours use for a recipient whose event gives no `timeZone` and whose number names no
   * country (e-mail, push, a number of a country outside the list). An IANA name.
   * @default 'UTC'
   */
  readonly quietHoursTimeZone?: string;
}

/** Where this stack's bulk e-mail is unsubscribed from. */
export interface ContactListOptions {
  /**
   * The contact list's name.
   * @default 'notifier'
   */
  readonly contactListName?: string;
  /**
   * Create the list with this stack's topics (retained on delete: it holds who unsubscribed). `false`: the list
   * exists already (created by another stack of the account or by hand) and already has this stack's topics; a
   * second stack in the account sets this, with its own `topicPrefix`, and the stack that owns the list names
   * the second stack's topics in `additionalTopics`.
   * @default true
   */
  readonly create?: boolean;
  /**
   * Prefix of this stack's topic names, so that two stacks sharing the account's one list keep their
   * subscribers apart (an unsubscribe from `shop-marketing` is not one from `newsletter-marketing`). Letters,
   * digits, `_` and `-`, at most 32.
   * @default '' (topics are the class names)
   */
  readonly topicPrefix?: string;
  /**
   * Topics of other stacks that share this stack's list (created only with `create`): the list resource holds
   * every topic of the list. Counted against SES's 20 topics per list.
   * @default - none
   */
  readonly additionalTopics?: readonly string[];
}
