/**
 * npm run mock: the embedded mock on its own, for people developing a client against the spec.
 * PIX_MOCK_PORT chooses the port (default 4010); Prism listens on another, behind our front.
 */
import { serveMockFront } from '../src/run/mock/front.ts';
import { startMock } from '../src/run/mock/prism.ts';

const port = Number(process.env.PIX_MOCK_PORT ?? '4010');
const log = (line: string): boolean => process.stdout.write(`${line}\n`);
const mock = await startMock({ logLevel: 'info', onLog: log });
const front = await serveMockFront({ upstream: mock.url, port, onLog: (line) => log(`[front] ${line}`) });
process.stdout.write(
  `\nPrism mock of openapi/pix-withdrawal.yaml on ${front.url}\n` +
    'It checks that credentials are present (not their values), answers a missing key 403 (§5.4), keeps no state,\n' +
    "answers with the spec's examples (each accepted withdrawal with an id of its own) and POSTs the example\n" +
    'webhook to PostBackUrl after an accepted withdrawal only. A schema smoke test: to build an integration,\n' +
    'use the simulator (pix-certify sandbox). Ctrl-C stops it.\n',
);
const shutdown = (): void => {
  void Promise.all([front.close(), mock.stop()]).then(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
