/** The owner token and claim version a ledger request carries, for traces. */
export function claimOf(body: string): string {
  try {
    const b = JSON.parse(body) as {
      Item?: Record<string, { S?: string; N?: string }>;
      ExpressionAttributeValues?: Record<string, { S?: string; N?: string }>;
    };
    const owner = b.Item?.ownerToken?.S ?? b.ExpressionAttributeValues?.[':owner']?.S;
    const version = b.Item?.claimVersion?.N ?? b.ExpressionAttributeValues?.[':version']?.N;
    return owner ? ` [${owner.slice(0, 8)} v${version ?? '?'}]` : '';
  } catch {
    return '';
  }
}
