import { GetAccountCommand, type SESv2Client } from '@aws-sdk/client-sesv2';

/** What SES says about the account's sending, read once at cold start. */
export interface SesAccountState {
  /** E-mails per second the account may send. */
  readonly maxSendRate: number | undefined;
  /** E-mails per rolling 24 hours. */
  readonly max24HourSend: number | undefined;
  readonly sentLast24Hours: number | undefined;
  /** False while the account is in the SES sandbox (verified recipients only, 1 e-mail/s, 200/day). */
  readonly productionAccessEnabled: boolean | undefined;
  /** False when SES has paused the account's sending: every e-mail is refused until an operator acts. */
  readonly sendingEnabled: boolean | undefined;
}

/** SES v2 `GetAccount` (permission `ses:GetAccount`). */
export async function readSesAccount(client: SESv2Client): Promise<SesAccountState> {
  const account = await client.send(new GetAccountCommand({}));
  return {
    maxSendRate: account.SendQuota?.MaxSendRate,
    max24HourSend: account.SendQuota?.Max24HourSend,
    sentLast24Hours: account.SendQuota?.SentLast24Hours,
    productionAccessEnabled: account.ProductionAccessEnabled,
    sendingEnabled: account.SendingEnabled,
  };
}
