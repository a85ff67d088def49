import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../../cli/ledger-command';
import { keyPrefix, SHORT_KEY_LENGTH } from '../../functions/core/event/idempotency-key';
import { ledgerRowView, renderLedgerRow } from '../../local/ledger-render';
import { claimOf, ttlSeconds } from '../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { TIMING, seedDeadClaims } from '../reclaimer/reclaimer-harness';

const db = useTestLedger();

const KEY = '3f9a0c1d2e4b5a6978877665544332211000ffeeddccbbaa9988776655443322';

/** A SENT e-mail that got a delivery event, and a PENDING SMS still holding its request. */
const SENT_ROW: LedgerRow = {
  key: KEY,
  state: 'SENT',
  claimVersion: 2,
  ownerToken: 'owner-b',
  claimedAt: Date.parse('2026-11-29T12:02:10.000Z'),
  leaseExpiresAt: Date.parse('2026-11-29T12:04:10.000Z'),
  attempts: 2,
  eventId: 'evt-order-1001-shipped',
  recipientId: 'buyer-17',
  channel: 'email',
  templateId: 'order-shipped',
  messageClass: 'transactional',
  occurredAt: '2026-11-29T11:59:00.000Z',
  createdAt: Date.parse('2026-11-29T12:00:00.000Z'),
  updatedAt: Date.parse('2026-11-29T12:02:11.250Z'),
  resolvedAt: Date.parse('2026-11-29T12:02:11.250Z'),
  expiresAt: Date.parse('2026-12-29T12:02:12.000Z') / 1000,
  providerMessageId: '0100018c-ses-message-id',
  lastAmbiguousAt: Date.parse('2026-11-29T12:00:00.000Z'),
  deliveryStatus: 'Delivery',
  deliveryStatusAt: Date.parse('2026-11-29T12:02:13.500Z'),
  deliveryStatusSource: 'ses',
  deliveryStatusClaimVersion: 2,
};

describe('ledger rendering', () => {
  it('renders a known row exactly', () => {
    expect(renderLedgerRow(SENT_ROW)).toBe(
      [
        `key                  ${KEY}`,
        'state                SENT',
        'message              email, class transactional, template order-shipped',
        'event                evt-order-1001-shipped',
        'recipient            buyer-17',
        'address              - (not kept once the row settles)',
        'attempts             2 (claim version 2)',
        'provider message id  0100018c-ses-message-id',
        'delivery status      Delivery at 2026-11-29T12:02:13.500Z via ses, about claim version 2',
        'failure reason       -',
        'last release         -',
        'occurred             2026-11-29T11:59:00.000Z',
        'created              2026-11-29T12:00:00.000Z',
        'claimed              2026-11-29T12:02:10.000Z',
        'lease expires        2026-11-29T12:04:10.000Z',
        'last ambiguous at    2026-11-29T12:00:00.000Z',
        'updated              2026-11-29T12:02:11.250Z',
        'resolved             2026-11-29T12:02:11.250Z',
        'expires (TTL)        2026-12-29T12:02:12.000Z',
      ].join('\n'),
    );
  });

  it("shows a proof of a send that a later event (another attempt's refusal) replaced as the status", () => {
    expect(renderLedgerRow({ ...SENT_ROW, deliveryStatus: 'Reject', deliveryStatusClaimVersion: 3, sendProvenBy: 'Delivery' })).toContain(
      'delivery status      Reject at 2026-11-29T12:02:13.500Z via ses, about claim version 3; sent, proven earlier by Delivery\n',
    );
  });

  it('shows a proof of delivery that a later uncertain word (an out-of-office bounce) replaced as the status', () => {
    const row = { ...SENT_ROW, deliveryStatus: 'Bounce', deliveryStatusDetail: 'Transient/General', deliveryStatusClaimVersion: 1, sendProvenBy: 'Delivery', deliveryProvenBy: 'Delivery' };
    expect(renderLedgerRow(row)).toContain(
      'delivery status      Bounce (Transient/General) at 2026-11-29T12:02:13.500Z via ses, about claim version 1; delivered, proven earlier by Delivery\n',
    );
  });

  it('a status from untagged mail names no claim', () => {
    expect(renderLedgerRow({ ...SENT_ROW, deliveryStatusClaimVersion: undefined })).toContain(
      'delivery status      Delivery at 2026-11-29T12:02:13.500Z via ses\n',
    );
  });

  it('masks the address of a PENDING row and never prints its content', () => {
    const pending: LedgerRow = {
      ...SENT_ROW,
      state: 'PENDING',
      channel: 'sms',
      providerMessageId: undefined,
      deliveryStatus: undefined,
      deliveryStatusAt: undefined,
      resolvedAt: undefined,
      lastRelease: 'transient',
      failureReason: 'Throttled: rate exceeded',
      request: { channel: 'sms', to: '+447700900123', text: 'Order 1001 shipped with DHL, tracking JD0142.' },
      pendingShard: '3',
    };
    const text = renderLedgerRow(pending);
    expect(text).toContain('address              +44********23');
    expect(text).toContain('delivery status      - (no delivery event received)');
    expect(text).toContain('failure reason       Throttled: rate exceeded');
    expect(text).toContain('last release         transient');
    expect(text).not.toContain('+447700900123');
    expect(text).not.toContain('JD0142');
  });
});

describe('consent and quiet hours in the support view', () => {
  const suppressed = (over: Partial<LedgerRow>): LedgerRow => ({
    ...SENT_ROW,
    state: 'SUPPRESSED',
    providerMessageId: undefined,
    deliveryStatus: undefined,
    deliveryStatusAt: undefined,
    deliveryStatusSource: undefined,
    ...over,
  });

  it('shows SUPPRESSED Unsubscribed / OptedOut, and whether the provider had taken the message', () => {
    expect(renderLedgerRow(suppressed({ suppressionReason: 'Unsubscribed', failureReason: 'Unsubscribed: the recipient unsubscribed from topic marketing (ses-subscription)' }))).toContain(
      'state                SUPPRESSED Unsubscribed (never sent)',
    );
    expect(renderLedgerRow(suppressed({ suppressionReason: 'OptedOut', providerMessageId: 'sns-1', failureReason: 'OptedOut: logged' }))).toContain(
      'state                SUPPRESSED OptedOut (the provider took it and did not deliver it)',
    );
  });

  it('shows a row held by quiet hours as deferred until the window ends, in the recipient zone', () => {
    const held: LedgerRow = {
      ...SENT_ROW,
      state: 'PENDING',
      providerMessageId: undefined,
      lastRelease: 'transient',
      failureReason: 'QuietHours: deferred until 2026-11-30T13:00:00.000Z (America/New_York, recipient)',
    };
    expect(renderLedgerRow(held)).toContain('state                PENDING (deferred: quiet hours until 2026-11-30T13:00:00.000Z (America/New_York))');
    expect(ledgerRowView(held).deferred).toBe('quiet hours until 2026-11-30T13:00:00.000Z (America/New_York)');
    expect(ledgerRowView({ ...held, failureReason: 'Throttled: rate exceeded' }).deferred).toBeNull();
  });
});

describe('a suppressed row', () => {
  it('shows the state with its reason and the address-free detail', () => {
    const suppressed: LedgerRow = {
      ...SENT_ROW,
      state: 'SUPPRESSED',
      providerMessageId: undefined,
      deliveryStatus: undefined,
      deliveryStatusAt: undefined,
      deliveryStatusSource: undefined,
      suppressionReason: 'NumberBlockLimit',
      failureReason: 'NumberBlockLimit: class otp allows 20 per 1 h per number-block',
    };
    const text = renderLedgerRow(suppressed);
    expect(text).toContain('state                SUPPRESSED (NumberBlockLimit: never sent)');
    expect(text).toContain('failure reason       NumberBlockLimit: class otp allows 20 per 1 h per number-block');
  });
});

describe('npx notifier ledger', () => {
  const capture = () => {
    const io = { stdout: '', stderr: '' };
    return {
      io,
      options: {
        openReader: () => db.ledger,
        out: (t: string) => void (io.stdout += t),
        err: (t: string) => void (io.stderr += t),
        env: {},
      },
    };
  };

  it('show <key> prints the row from the ledger; event <eventId> prints every message of the event', async () => {
    const clock = Date.parse('2026-11-29T12:00:00.000Z');
    const rows = await seedDeadClaims(db.ledger, orderShippedEvent({ eventId: 'evt-cli-1' }), clock);
    const settled = rows[0]!;
    await db.ledger.complete(claimOf(settled), { state: 'SENT', providerMessageId: 'ses-cli-1' }, clock + 900, ttlSeconds(clock, TIMING));

    const show = capture();
    expect(await run(['show', settled.key, '--table', db.tableName], show.options)).toBe(0);
    expect(show.io.stdout).toBe(`${renderLedgerRow((await db.ledger.get(settled.key))!)}\n`);
    expect(show.io.stdout).toContain('provider message id  ses-cli-1');

    const event = capture();
    expect(await run(['event', 'evt-cli-1', '--table', db.tableName], event.options)).toBe(0);
    expect(event.io.stdout.split('\n')[0]).toBe('event evt-cli-1: 4 messages (1 SENT, 3 PENDING)');
    expect(event.io.stdout).not.toMatch(/buyer@example\.com|seller@example\.com|\+447700900123|JD0142/);
    expect(event.io.stdout).toContain('s***@example.com');
    expect(event.io.stdout).toContain('+44********23');

    const json = capture();
    expect(await run(['event', 'evt-cli-1', '--json', '--table', db.tableName], json.options)).toBe(0);
    const views = JSON.parse(json.io.stdout) as { state: string; address: string | null; createdAt: string }[];
    expect(views).toHaveLength(4);
    expect(views.every((v) => v.createdAt === '2026-11-29T12:00:00.000Z')).toBe(true);
    expect(json.io.stdout).not.toContain('JD0142');
  });

  it('answers usage errors and misses with a reason and an exit code', async () => {
    const noTable = capture();
    expect(await run(['show', KEY], noTable.options)).toBe(2);
    expect(noTable.io.stderr).toContain('LEDGER_TABLE_NAME');

    const prefix = capture();
    // The short key of the logs, the summary and the local pages: the key's first characters.
    expect(await run(['show', keyPrefix(KEY), '--table', db.tableName], prefix.options)).toBe(2);
    expect(prefix.io.stderr).toContain(`the short key from a log line (the key's first ${SHORT_KEY_LENGTH} characters)`);
    expect(prefix.io.stderr).toContain('notifier ledger event <eventId>');

    const missing = capture();
    expect(await run(['show', 'e'.repeat(64), '--table', db.tableName], missing.options)).toBe(1);
    expect(missing.io.stderr).toContain('no ledger row');

    const none = capture();
    expect(await run(['event', 'evt-nobody', '--table', db.tableName], none.options)).toBe(1);
    expect(none.io.stdout).toBe('no ledger rows for event evt-nobody\n');

    const bad = capture();
    expect(await run(['frobnicate'], bad.options)).toBe(2);
    expect(bad.io.stderr).toContain('usage: notifier ledger');
  });

  it('runs as the package bin against a local endpoint given by AWS_ENDPOINT_URL_DYNAMODB', async () => {
    const [row] = await seedDeadClaims(db.ledger, orderShippedEvent({ eventId: 'evt-cli-bin' }), Date.parse('2026-11-29T12:00:00.000Z'));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['cli/notifier.mjs', 'ledger', 'show', row!.key],
      {
        env: {
          ...process.env,
          AWS_ENDPOINT_URL_DYNAMODB: db.endpoint,
          AWS_REGION: 'us-east-1',
          AWS_ACCESS_KEY_ID: 'test',
          AWS_SECRET_ACCESS_KEY: 'test',
          LEDGER_TABLE_NAME: db.tableName,
        },
      },
    );
    expect(stdout).toBe(`${renderLedgerRow((await db.ledger.get(row!.key))!)}\n`);
  });
});
