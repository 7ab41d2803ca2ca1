// Preloaded into the Prism process. Prism's mocker requires @faker-js/faker whole, every locale of
// it: about half of Prism's start-up (0.7 s of CPU here), taken on a 2-core machine from Playwright
// starting beside it. Faker serves only dynamic examples and x-faker, which this spec does not use.
// Seeding the module cache with faker's own English build gives Prism the same faker API and cuts
// its start-up from about 1.6 s to 0.8 s; selftest/mock-startup.test.ts checks both.
const Module = require('node:module');

const fromMocker = Module.createRequire(require.resolve('@stoplight/prism-http/package.json'));
const whole = fromMocker.resolve('@faker-js/faker');
const english = fromMocker('@faker-js/faker/locale/en');
const seeded = new Module(whole, module);
seeded.filename = whole;
// The shape of faker's own entry point, which Prism reads as `.default`.
seeded.exports = { default: english, faker: english };
seeded.loaded = true;
require.cache[whole] = seeded;
