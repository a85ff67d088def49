import { alarmOptionViolations } from './alarm-options';
import { destinationViolations } from './destination-options';
import { emailFromViolations, sesIdentityViolations } from './email-from';
import { runtimeViolations } from './lambda-runtime';
import { consentViolations } from './notifier-consent';
import { handlerConfigViolations } from './notifier-environment';
import { laneViolations, messageClassNames } from './notifier-lanes';
import type { IdempotentNotifierProps } from './notifier-props';
import { type NotifierSettings, settingsViolations } from './notifier-settings';
import { scaleViolations } from './scale-check';
import { sendPaceViolations } from './send-pace';
import { samplingPercentViolations } from './sms-delivery-status';
import { smsSpendViolations } from './sms-spend-limit';
import { endUserMessagingViolations } from './end-user-messaging-sms';
import { emailTenantViolations } from './ses-tenants';

/** The configuration the construct refuses: every failure, each naming the value it was given. */
export class NotifierConfigurationError extends Error {
  constructor(public readonly violations: readonly string[]) {
    super(`IdempotentNotifier: unsafe configuration:\n - ${violations.join('\n - ')}`);
    this.name = 'NotifierConfigurationError';
  }
}

/**
 * Every reason the props cannot make a working notifier, collected from every check (the From address,
 * timings and queue, send pace, scale, alarm options, SMS settings, and the handlers' own loaders), so one synth
 * lists them all instead of stopping at the first.
 */
export function notifierViolations(props: IdempotentNotifierProps, settings: NotifierSettings): string[] {
  return [
    ...emailFromViolations(props.emailFrom),
    ...sesIdentityViolations(props.sesIdentity, props.emailFrom ?? ''),
    ...emailTenantViolations(props.sesTenants, settings.lanes.enabled),
    ...settingsViolations(settings),
    ...runtimeViolations(settings.lambdaRuntime),
    ...laneViolations(props.lanes, {
      existingQueue: props.existingQueue !== undefined,
      classNames: messageClassNames(props.messageClasses),
      throttleBackoffCapSeconds: settings.throttleBackoff.capSeconds,
    }),
    ...sendPaceViolations(props.sendRates, settings.throttleBackoff),
    ...scaleViolations(props, settings),
    ...alarmOptionViolations(props.alarms ?? {}, settings.alarms.backlogLossHorizon),
    ...destinationViolations(props),
    ...smsViolations(props, settings),
    ...endUserMessagingViolations(props, settings.smsEnabled),
    ...consentViolations(settings.consent, props.contactList?.additionalTopics),
    ...handlerConfigViolations(props, settings),
  ];
}

/** @throws NotifierConfigurationError listing every violation, when there is one. */
export function assertValid(props: IdempotentNotifierProps, settings: NotifierSettings): void {
  const violations = notifierViolations(props, settings);
  if (violations.length > 0) throw new NotifierConfigurationError(violations);
}

function smsViolations(props: IdempotentNotifierProps, s: NotifierSettings): string[] {
  const violations: string[] = [];
  if (s.smsDeliveryStatusLogs && !s.smsEnabled) {
    violations.push(
      `smsDeliveryStatusLogs needs smsEnabled (smsDeliveryStatusLogs: ${s.smsDeliveryStatusLogs}, smsEnabled: ${s.smsEnabled})`,
    );
  }
  const sampling = props.smsDeliveryStatusSuccessSamplingPercent;
  if (sampling !== undefined) {
    if (!s.smsDeliveryStatusLogs) {
      violations.push(
        `smsDeliveryStatusSuccessSamplingPercent (${sampling}) needs smsDeliveryStatusLogs: true (smsDeliveryStatusLogs: ${s.smsDeliveryStatusLogs})`,
      );
    }
    violations.push(...samplingPercentViolations(sampling));
  }
  violations.push(...smsSpendViolations(props, s.smsEnabled));
  return violations;
}
