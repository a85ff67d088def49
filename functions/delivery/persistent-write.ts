/** Rounds of an outcome write, each already retried by the SDK, before the attempt gives up. */
const OUTCOME_WRITE_ROUNDS = 3;

/**
 * An outcome or release write is what turns a send this attempt knows about into a fact on the row;
 * if it is lost, the next delivery can only see a claim whose owner died, an ambiguity nobody had.
 * Every such write is fenced on our own claim and safe to repeat after its own success, so it is
 * retried in a few more rounds (100 ms, 200 ms apart) before the error is let through.
 */
export async function persistently<T>(write: () => Promise<T>): Promise<T> {
  for (let round = 1; ; round += 1) {
    try {
      return await write();
    } catch (error) {
      if (round >= OUTCOME_WRITE_ROUNDS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (round - 1)));
    }
  }
}
