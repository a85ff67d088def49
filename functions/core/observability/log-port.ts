/** Structured logging port; Powertools Logger satisfies it. Never pass addresses or bodies. */
export interface LogPort {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

export const silentLog: LogPort = { info() {}, warn() {}, error() {} };
