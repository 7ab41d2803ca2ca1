/**
 * npm run mock: the embedded mock on its own, for people developing a client against the spec.
 * PIX_MOCK_PORT chooses the port (default 4010).
 */
import { startMock } from '../src/run/mock/prism.ts';
import { commandHelp, helpAsked } from './command-help.ts';

if (helpAsked(process.argv.slice(2))) {
  process.stdout.write(
    `${commandHelp('mock', "Prism serves openapi/pix-withdrawal.yaml on PIX_MOCK_PORT (default 4010): it checks that credentials\nare present (not their values), keeps no state, answers with the spec's examples and POSTs the\nexample webhook to PostBackUrl.")}\n`,
  );
  process.exit(0);
}

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
