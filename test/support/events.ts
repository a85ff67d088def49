import type { NotificationEvent } from '../../functions/core/event/notification-event';

/** A shipped order: the buyer by email, SMS and push; the seller by email. Four messages. */
export function orderShippedEvent(overrides: Partial<NotificationEvent> = {}): NotificationEvent {
  return {
    eventId: 'evt-order-1001-shipped',
    occurredAt: '2026-11-29T11:59:00.000Z',
    type: 'OrderShipped',
    templateId: 'order-shipped',
    messageClass: 'transactional',
    data: { orderId: '1001', carrier: 'DHL', trackingNumber: 'JD0142' },
    recipients: [
      {
        recipientId: 'buyer-17',
        email: 'buyer@example.com',
        phone: '+447700900123',
        pushEndpointArn: 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab',
        channels: ['email', 'sms', 'push'],
      },
      { recipientId: 'seller-4', email: 'seller@example.com', channels: ['email'] },
    ],
    ...overrides,
  };
}

/** A one-time sign-in code by SMS: one message, class `otp`. */
export function loginCodeEvent(overrides: Partial<NotificationEvent> = {}): NotificationEvent {
  return {
    eventId: 'evt-login-code-77',
    occurredAt: '2026-11-29T11:59:30.000Z',
    type: 'LoginCodeRequested',
    templateId: 'login-code',
    messageClass: 'otp',
    data: { code: '482913', expiresInMinutes: 10 },
    recipients: [{ recipientId: 'user-9', phone: '+14155550101', channels: ['sms'] }],
    ...overrides,
  };
}

/** This week's offers to one member by e-mail: one message, class `marketing` (bulk), template `weekly-offers` (bulk). */
export function weeklyOffersEvent(overrides: Partial<NotificationEvent> = {}): NotificationEvent {
  return {
    eventId: 'evt-weekly-offers-48',
    occurredAt: '2026-11-29T11:59:00.000Z',
    type: 'WeeklyOffers',
    templateId: 'weekly-offers',
    messageClass: 'marketing',
    data: { headline: 'Up to 30% off garden tools', url: 'https://shop.example/offers' },
    recipients: [{ recipientId: 'seller-4', email: 'seller@example.com', channels: ['email'] }],
    ...overrides,
  };
}
