/**
 * npm run mutate sets SELFTEST_IN_PROCESS_ONLY=1: Stryker counts coverage in the test process only,
 * and a whole suite run per mutant would take the mutation run past its hour, so the groups that
 * run the suite or Playwright in child processes are skipped there, saying why. npm test runs them.
 */
export const IN_PROCESS_ONLY =
  process.env.SELFTEST_IN_PROCESS_ONLY === '1'
    ? 'npm run mutate judges in-process tests only (Stryker sees no coverage in child processes); npm test runs this group'
    : false;
