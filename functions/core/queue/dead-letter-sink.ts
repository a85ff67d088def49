import type { InvalidEventReason } from '../errors';

/** An SQS record that can never be processed, with why. */
export interface DeadLetter {
  readonly body: string;
  readonly reason: InvalidEventReason;
  /** Human-readable detail; never contains addresses or message content. */
  readonly detail: string;
  /** The SQS messageId it arrived with (for tracing only). */
  readonly sourceMessageId: string;
}

/** Where invalid records go. If `deadLetter` throws, the record is retried, never dropped. */
export interface DeadLetterSink {
  deadLetter(letter: DeadLetter): Promise<void>;
}

/** Keeps dead letters in memory (tests, local runner). */
export class InMemoryDeadLetters implements DeadLetterSink {
  readonly letters: DeadLetter[] = [];
  async deadLetter(letter: DeadLetter): Promise<void> {
    this.letters.push(letter);
  }
}
