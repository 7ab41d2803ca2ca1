/** After the client's command ends: the journal once the simulator's webhooks have settled, or at the bound. */
import { awaitedDeliveries, type Journal, type OutcomeRow } from '../src/evidence/journal.ts';

const POLL_MS = 100;

export async function settledJournal(
  fetchJournal: () => Promise<Journal>,
  outcomes: readonly OutcomeRow[],
  waitMs: number,
  realistic: boolean,
): Promise<Journal> {
  const deadline = Date.now() + waitMs;
  let journal = await fetchJournal();
  while (awaitedDeliveries(journal, outcomes, waitMs / 1000, realistic) > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    journal = await fetchJournal();
  }
  return journal;
}
