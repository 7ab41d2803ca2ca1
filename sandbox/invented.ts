/**
 * What the sandbox makes up: withdrawal ids, end-to-end ids and webhook message ids, drawn from
 * faker with the sandbox's seed. Tokens are not among them: they stay unguessable (node:crypto).
 */
import { faker } from '@faker-js/faker/locale/base';

export class Invented {
  private position = 0;

  private readonly seed: number;

  constructor(seed: number) {
    this.seed = seed;
  }

  withdrawalId(): string {
    return this.draw((f) => f.string.uuid());
  }

  /** The 11 alphanumerics that end a Pix end-to-end id. */
  endToEndTail(): string {
    return this.draw((f) => f.string.alphanumeric(11));
  }

  /** A Standard Webhooks message id. */
  messageId(): string {
    return this.draw((f) => `msg_${f.string.alphanumeric({ length: 32, casing: 'lower' })}`);
  }

  /** Each value depends only on the seed and its position: the shared faker is reseeded for it. */
  private draw<T>(make: (f: typeof faker) => T): T {
    faker.seed([this.seed, this.position++]);
    return make(faker);
  }
}
