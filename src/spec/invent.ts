/**
 * The values the suite invents (wrong credentials of the real ones' shape, forged tokens, the tail
 * of each code), drawn from faker with the run's seed (seed.ts). Each test draws from its own stream, derived
 * from the seed and the test's title, so `PIX_SEED=<n>` replays the same values test by test however
 * the tests are spread over workers. The user's payee is never invented.
 */
import { createHash } from 'node:crypto';
import { faker } from '@faker-js/faker/locale/base';

type Faker = typeof faker;

/** A stream of invented values; each depends only on the stream's seed and its position in it. */
export class Inventor {
  private position = 0;

  private readonly seed: readonly number[];

  constructor(seed: readonly number[]) {
    this.seed = seed;
  }

  /** The stream of one test: the run's seed and a number derived from the test's title path. */
  static forTest(runSeed: number, titlePath: readonly string[]): Inventor {
    const digest = createHash('sha256').update(titlePath.join('\u0000')).digest();
    return new Inventor([runSeed, digest.readUInt32BE(0)]);
  }

  /**
   * The stream of one case of a test, derived from the test's and the case's name: cases sent together
   * draw in whatever order their answers come, so each draws from its own.
   */
  branch(name: string): Inventor {
    return new Inventor([...this.seed, createHash('sha256').update(name).digest().readUInt32BE(0)]);
  }

  next<T>(make: (faker: Faker) => T): T {
    // One shared faker, reseeded for every value: no stream sees another's draws.
    faker.seed([...this.seed, this.position++]);
    return make(faker);
  }
}
