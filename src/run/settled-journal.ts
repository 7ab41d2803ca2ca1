/** After the client's command ends: the journal once the simulator says no delivery is due, or at the bound. */
import { awaitedDeliveries, type Journal } from '../evidence/journal.ts';

const POLL_MS = 100;

export async function settledJournal(fetchJournal: () => Promise<Journal>, waitMs: number): Promise<Journal> {
  const deadline = Date.now() + waitMs;
  let journal = await fetchJournal();
  while (awaitedDeliveries(journal, deadline - Date.now()) > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    journal = await fetchJournal();
  }
  return journal;
}
