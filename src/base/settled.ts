/**
 * Promises started together, awaited until every one has settled: their values in order, or the
 * first failure in their order, thrown only once nothing is left in flight (a test that stops at the
 * first failure would otherwise end with requests still out, their answers never recorded).
 */
export async function allSettledInOrder<T extends readonly unknown[]>(started: {
  readonly [K in keyof T]: Promise<T[K]>;
}): Promise<T> {
  const settled = await Promise.allSettled(started);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
