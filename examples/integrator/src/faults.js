// INTEGRATOR_FAULT=<name> makes this example wrong in one way, so that the suite's self-test can show
// that `pix-certify client` catches it (selftest/slow/client-matrix.test.ts). Unset: the correct app.
export const FAULT = process.env.INTEGRATOR_FAULT ?? '';
