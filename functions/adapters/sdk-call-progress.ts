import type { DeliveryOutcome } from '../core/provider/delivery-provider';
import type { CallProgress } from '../core/provider/provider-outcome';

/**
 * How far one SDK call got, told by markers of our own on the command's middleware stack, never by the
 * error's name. The SDK (smithy's `Command.resolveMiddlewareWithContext`) runs the stack in steps, and ends
 * it in `requestHandler.handle(request, options)`, the HTTP handler that writes the request:
 *
 * initialize → serialize: `httpAuthSchemeMiddleware` (credentials), `endpointV2Middleware`, then
 * `serializerMiddleware` (the request built from the input) → build → finalizeRequest (retry, signing)
 * → deserialize: `deserializerMiddleware`, whose next is the handler.
 *
 * Four markers: the call started; the endpoint was resolved (the serializer runs next); the request was
 * serialized; the request is handed to the handler (the innermost middleware: its next is `handle()`). A
 * failure before the last marker is certain: nothing left. Why a middleware and not a wrapped request
 * handler: a marker that fails to fire errs towards "may have left", while a handler wrapper missing from
 * a client (one built without it, or an SDK that copies the call's options) would read a timeout as "not
 * sent", a duplicate. A marker that fires too early only errs towards "may have left" too (a middleware an
 * SDK version might add after it).
 *
 * The markers are added to the command, not the client: each call has its own, however many share a client.
 */
export function trackCallProgress(command: { readonly middlewareStack: MarkableStack }): () => CallProgress {
  let reached = 0;
  const marker =
    (stage: number): Marker =>
    (next) =>
    (args) => {
      reached = stage;
      return next(args);
    };
  const stack = command.middlewareStack;
  stack.add(marker(1), { step: 'initialize', priority: 'high', name: 'notifierCallStarted' });
  stack.addRelativeTo(marker(2), { relation: 'after', toMiddleware: 'endpointV2Middleware', name: 'notifierSerializing' });
  stack.addRelativeTo(marker(3), { relation: 'after', toMiddleware: 'serializerMiddleware', name: 'notifierSerialized' });
  stack.addRelativeTo(marker(4), { relation: 'after', toMiddleware: 'deserializerMiddleware', name: 'notifierHandedOver' });
  return () => PROGRESS[reached]!;
}

/** How {@link sendTracked} reads one provider's call. */
export interface TrackedSend {
  /** The provider's name, for the outcome of a call accepted without a message id. */
  readonly service: string;
  /** The provider's error classification, told how far the call got. */
  readonly classify: (error: unknown, progress: CallProgress) => DeliveryOutcome;
}

/**
 * One provider send with the markers on its command: a message id is a send, an answer without one an
 * ambiguity, an error what the provider's rules make of it and of how far the call got.
 */
export async function sendTracked<C extends { readonly middlewareStack: MarkableStack }>(
  command: C,
  call: (command: C) => Promise<{ readonly MessageId?: string }>,
  { service, classify }: TrackedSend,
): Promise<DeliveryOutcome> {
  const progress = trackCallProgress(command);
  try {
    const result = await call(command);
    return result.MessageId
      ? { kind: 'sent', providerMessageId: result.MessageId }
      : { kind: 'ambiguous', reason: `${service} accepted the call but returned no MessageId` };
  } catch (error) {
    return classify(error, progress());
  }
}

/** The progress of a call whose last marker reached is the index: none, started, serializing, serialized, handed over. */
const PROGRESS: readonly CallProgress[] = ['unknown', 'environment', 'content', 'environment', 'handed-over'];

/** A middleware that only looks: whatever the step, it passes the arguments on. */
type Marker = <TArgs, TResult>(next: (args: TArgs) => Promise<TResult>) => (args: TArgs) => Promise<TResult>;

/** The two calls of an SDK command's middleware stack the markers use (`MiddlewareStack` from @smithy/types). */
interface MarkableStack {
  add(middleware: Marker, options: { readonly step: 'initialize'; readonly priority: 'high'; readonly name: string }): void;
  addRelativeTo(middleware: Marker, options: { readonly relation: 'after'; readonly toMiddleware: string; readonly name: string }): void;
}
