/** Accepted sends per idempotency key; sends that carried no key are not counted. */
export function countByKey(sends: readonly { readonly key: string | undefined }[]): ReadonlyMap<string, number> {
  const counts = new Map<string, number>();
  for (const send of sends) if (send.key !== undefined) counts.set(send.key, (counts.get(send.key) ?? 0) + 1);
  return counts;
}
