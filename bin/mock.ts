/**
 * npm run mock: the embedded mock on its own, for people developing a client against the spec.
 * PIX_MOCK_PORT chooses the port (default 4010); Prism listens on another, behind our front.
 */
import { serveMockFront } from '../src/run/mock/front.ts';
import { startMock } from '../src/run/mock/prism.ts';
import { commandHelp, helpAsked } from './command-help.ts';

const ABOUT = [
  'Prism serving openapi/pix-withdrawal.yaml with its examples, behind a front of ours: it checks that credentials',
  'are present (not their values) and answers a missing key 403 (§5.4), keeps no state, gives each accepted',
  'withdrawal an id of its own and POSTs the example webhook to its PostBackUrl, after an accepted withdrawal only.',
  'A schema smoke test: to build an integration against outcomes you choose, use the simulator (sandbox).',
];

if (helpAsked(process.argv.slice(2))) {
  const { variablesText } = await import('./usage.ts');
  process.stdout.write(`${commandHelp('mock', `${ABOUT.join('\n')}\n\n${variablesText('PIX_MOCK_')}`)}\n`);
  process.exit(0);
}
const port = Number(process.env.PIX_MOCK_PORT ?? '4010');
const log = (line: string): boolean => process.stdout.write(`${line}\n`);
const mock = await startMock({ logLevel: 'info', onLog: log });
const front = await serveMockFront({ upstream: mock.url, port, onLog: (line) => log(`[front] ${line}`) });
log(`\nThe embedded mock on ${front.url}\n${ABOUT.join('\n')}\nCtrl-C stops it.`);
const shutdown = (): void => {
  void Promise.all([front.close(), mock.stop()]).then(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
