import { EXAMPLE_SEEDS } from '../../local/local-runner';

/**
 * How the tests run npm start's example: what it seeds for examples/order-events.jsonl, quickly, and one invocation
 * at a time, which keeps the counts exact (with more, a producer retry right behind its original can find the claim
 * held and come back after the visibility timeout: retried > 0). A loaded machine may still leave a batch's last
 * records too little of the invocation for a delivery: each is handed back and counted (`handedBack`).
 */
export const EXAMPLE_RUN = { rate: 500, concurrency: 1, ...EXAMPLE_SEEDS } as const;
