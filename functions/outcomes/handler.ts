import { createLambdaObservability } from '../adapters/lambda-observability';
import { SERVICE } from '../core/observability/metric-names';
import { wireOutcomePublisher } from './outcome-publisher-wiring';

/**
 * The outcome publisher: the ledger table's stream (filtered to settled rows by the event source mapping) in,
 * one event per producer-visible state change on the stack's event bus out. Cold start: the bus only; the
 * publisher never reads or writes the ledger.
 */
export const handler = wireOutcomePublisher(process.env, createLambdaObservability(SERVICE.outcomes));
