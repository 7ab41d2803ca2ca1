/**
 * npm run mock: the embedded mock on its own, for people developing a client against the spec.
 * PIX_MOCK_PORT chooses the port (default 4010).
 */
import { startMock } from '../src/run/mock/prism.ts';

const port = Number(process.env.PIX_MOCK_PORT ?? '4010');
const mock = await startMock({ port, logLevel: 'info', onLog: (line) => process.stdout.write(`${line}\n`) });
process.stdout.write(
  `\nPrism mock of openapi/pix-withdrawal.yaml on ${mock.url}\n` +
    "It checks that credentials are present (not their values), keeps no state, answers with the spec's examples\n" +
    'and POSTs the example webhook to PostBackUrl. Ctrl-C stops it.\n',
);
const shutdown = (): void => {
  void mock.stop().then(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
