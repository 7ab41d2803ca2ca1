/**
 * The reporter's name for the suite's one redaction path (tests/_support/redact.ts): the same
 * registry, shared by every process of the run, and the same masks by value and by shape.
 */
export { redact as scrub, redactJson as scrubJson } from '../secrets/redact.ts';
