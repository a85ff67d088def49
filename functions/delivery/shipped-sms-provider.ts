/**
 * The identifier the stack's SMS provider is embedded under: synth hands esbuild a `define` for it
 * (lib/destination-options.ts), so a bundle built for SNS carries no End User Messaging adapter or client and
 * one built for End User Messaging carries them. Unbundled (tests, local runs) it is undefined: both are there.
 */
export const SHIPPED_SMS_PROVIDER_IDENTIFIER = '__NOTIFIER_SMS_PROVIDER__';
