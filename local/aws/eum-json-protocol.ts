/** awsJson1_0 as End User Messaging SMS speaks it: the operation in X-Amz-Target, errors by `__type`. */
export const EUM_TARGET_PREFIX = 'PinpointSMSVoiceV2';
export const EUM_JSON_CONTENT_TYPE = 'application/x-amz-json-1.0';
const NAMESPACE = 'com.amazonaws.pinpointsmsvoicev2';

/** One error answer: its name and the modeled members the SDK reads (`Message`, `Reason`, `Fields`, `ResourceType`). */
export interface EumErrorShape {
  readonly code: string;
  readonly message: string;
  readonly reason?: string;
  readonly fields?: readonly { readonly Name: string; readonly Message: string }[];
  readonly resourceType?: string;
}

/** The error body, shaped as the service model's structures: the SDK maps each member onto its exception. */
export function eumErrorBody(error: EumErrorShape): string {
  return JSON.stringify({
    __type: `${NAMESPACE}#${error.code}`,
    Message: error.message,
    ...(error.reason ? { Reason: error.reason } : {}),
    ...(error.fields ? { Fields: error.fields } : {}),
    ...(error.resourceType ? { ResourceType: error.resourceType } : {}),
  });
}
