// Required by the mock's thread before Prism (prism-thread.cjs). Prism's mocker requires its faker whole,
// every locale: about 1 s of processor time on Node 24, most of Prism's start-up, the run's last step
// before its first test. Faker serves only dynamic examples and x-faker, which this spec does not use;
// faker's own English build, seeded in the module cache where Prism's require finds it, gives the same
// API. A private path of Prism's: selftest/mock-startup.test.ts fails if it stops taking (docs/performance.md).
const Module = require('node:module');

const fromCli = Module.createRequire(require.resolve('@stoplight/prism-cli/package.json'));
const fromMocker = Module.createRequire(fromCli.resolve('@stoplight/prism-http/package.json'));
const whole = fromMocker.resolve('@faker-js/faker');
const english = fromMocker('@faker-js/faker/locale/en');
const seeded = new Module(whole, module);
seeded.filename = whole;
// The shape of faker's own entry point, which Prism reads as `.default`.
seeded.exports = { default: english, faker: english };
seeded.loaded = true;
require.cache[whole] = seeded;
