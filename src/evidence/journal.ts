/**
 * The simulator's journal of one namespace, as its control API gives it (openapi/simulator-control.yaml,
 * docs/simulator.md): every request a client sent, with every way it departs from the document, every
 * delivery to its webhook handler with the handler's answer, and the deliveries still due. Credential
 * values are masked by the simulator; the client certification judges this data only. The types are
 * generated from the contract, as the simulator's are, so the two sides cannot spell a code differently.
 */
import type { components } from '../spec/generated/simulator-control.ts';

type Schemas = components['schemas'];
export type Journal = Schemas['Journal'];
export type JournalRequest = Schemas['JournalRequest'];
export type JournalDelivery = Schemas['JournalDelivery'];
export type DepartureCode = Schemas['DepartureCode'];
export type DeliveryKind = Schemas['WebhookKind'];
export type OutcomeName = Schemas['OutcomeName'];
/** A row of the simulator's outcome table: what a valid withdrawal of that amount gets. */
export type OutcomeRow = Schemas['OutcomeRow'];

/**
 * How many deliveries the journal says are still due within `horizonMs` of its making: a webhook due
 * later (webhook-late's 30 s) is not waited for past the run's bound.
 */
export function awaitedDeliveries(journal: Journal, horizonMs: number): number {
  return journal.due.filter((due) => due.dueInMs <= horizonMs).length;
}
