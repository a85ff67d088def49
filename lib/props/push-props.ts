/**
 * Mobile push through SNS: whether, and to the endpoints of which platform applications. Validated by
 * `destinationViolations` (lib/destination-options.ts).
 */
export interface PushProps {
  /**
   * Allow mobile push: `sns:Publish` on the endpoints of `pushPlatformApplications`. Needs them: synth fails without.
   * @default - true when `pushPlatformApplications` are given, else false
   */
  readonly pushEnabled?: boolean;
  /**
   * ARNs of the platform applications (`arn:aws:sns:<region>:<account>:app/<PLATFORM>/<name>`) whose endpoints may
   * be published to; `sns:Publish` is granted on their endpoints only, and a message to an endpoint of any other
   * application ends `SUPPRESSED` `PushApplicationNotAllowed`.
   * @default - none (push off)
   */
  readonly pushPlatformApplications?: readonly string[];
}
