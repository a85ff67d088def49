/** Injected time source: epoch milliseconds. Production uses {@link systemClock}. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
