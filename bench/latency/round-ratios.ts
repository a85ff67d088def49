import { round } from '../../local/stats';

/** The senders in round `round`'s order: each round starts one further along, so every sender takes every place alike. */
export function rotation<T>(senders: readonly T[], roundIndex: number): T[] {
  return senders.map((_, i) => senders[(i + roundIndex) % senders.length]!);
}

/** Whether `rounds` rounds put every sender in every place equally often. */
export function isBalanced(senderCount: number, rounds: number): boolean {
  return rounds % senderCount === 0;
}

/** Median (mean of the middle two for an even count), lowest and highest of per-round ratios. */
export function summariseRatios(ratios: readonly number[]): { readonly median: number; readonly min: number; readonly max: number } {
  if (ratios.length === 0) throw new RangeError('no rounds to summarise');
  const sorted = [...ratios].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** A ratio as printed: "1.52x", and "0.93x (slower)" below 1 so it cannot be read as a lead. */
export function ratioText(ratio: number): string {
  const text = `${round(ratio, 2).toFixed(2)}x`;
  return ratio < 1 ? `${text} (slower)` : text;
}
