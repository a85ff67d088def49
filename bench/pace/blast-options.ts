import type { ProgressLine } from '../../local/progress-line';

/** One blast run: a marketing backlog on the queue, login codes trickling in while it drains. */
export interface BlastScenarioOptions {
  readonly label: string;
  /** Lanes on: codes in the urgent lane's queue, the blast in the bulk lane's. Off: one queue (the stack before lanes). */
  readonly lanes: boolean;
  /** Marketing e-mails on the queue before the first poll. */
  readonly blast: number;
  /** Login-code e-mails enqueued per second while the blast drains. */
  readonly codesPerSecond: number;
  /** For how long codes are enqueued, from the first poll. */
  readonly codesForMs: number;
  /** The local SES's e-mails per second (the account rate). */
  readonly emailQuota: number;
  /** Event-source maximum concurrency: of the one queue (off), of the bulk lane (on). */
  readonly maxConcurrency: number;
  /** Of the urgent lane (on). */
  readonly urgentMaxConcurrency: number;
  /** The bulk lane's share of the account rate (on). */
  readonly bulkRateShare: number;
  readonly batchSize: number;
  readonly maxReceiveCount: number;
  readonly maxDrainMs: number;
  readonly log: (line: string) => void;
  /** @default a line through `log` every 10 s */
  readonly progress?: ProgressLine;
}

/** The login codes the trickle enqueued: key and enqueue time (epoch ms). */
export interface EnqueuedCode {
  readonly key: string;
  readonly enqueuedAt: number;
}
