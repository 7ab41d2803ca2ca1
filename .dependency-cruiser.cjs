/**
 * The engine's layers, enforced by `npm run lint` (depcruise): a folder of src/ imports only the folders
 * below it, so the tree reads bottom-up; docs/architecture.md draws the same picture. Type-only imports
 * count (tsPreCompilationDeps), since a type circle is a design circle all the same.
 */
const LAYERS = [
  'base', // values and helpers with no knowledge of the suite: paths, JSON, status classes, escaping
  'secrets', // the run's secret registry, masking, token harvesting, signature keys
  'config', // the PIX_* variables, read and checked once per process; the run state between processes
  'spec', // the OpenAPI document, the valid requests it describes, invented values
  'evidence', // what was exchanged and delivered, as data: what checks judge and reports show
  'transport', // HTTP and TLS: the only layer that sends
  'preflight', // the one harmless request before a run, and what a failed one means
  'checks', // the vocabulary, the check families, the catalogue
  'receiver', // the webhook receiver, deployable on its own
  'webhook', // the suite's side of the receiver: opening a run, waiting for deliveries
  'run', // target, plan, payouts, ledger, sessions, the recorder of verdicts
  'report', // the certification: model, build, completeness, compare, integrity, verify
];

const folder = (layer) => `^src/${layer}/`;
const anyOf = (layers) => `^src/(${layers.join('|')})/`;

const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer}`,
  comment: `src/${layer}/ may import only the layers below it (${LAYERS.slice(0, index).join(', ') || 'none'})`,
  severity: 'error',
  from: { path: folder(layer) },
  to: { path: anyOf(LAYERS.slice(index + 1)) },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'checks-judge-data',
      comment: 'checks judge what they are given: they never send (transport, preflight) nor know the run',
      severity: 'error',
      from: { path: folder('checks') },
      to: { path: anyOf(['transport', 'preflight']) },
    },
    {
      name: 'receiver-stands-alone',
      comment: 'the receiver is deployed on its own: it knows nothing of checks or a run',
      severity: 'error',
      from: { path: folder('receiver') },
      to: { path: anyOf(['checks', 'webhook', 'run', 'report']) },
    },
    {
      name: 'reports-never-send',
      comment: 'reports and renderers work from what was recorded; they never reach the transport',
      severity: 'error',
      from: { path: '^(src/report|reporters)/' },
      to: { path: anyOf(['transport', 'preflight']) },
    },
    {
      name: 'engine-below-its-users',
      comment: 'src/ is imported by tests, reporters and bin, never the other way round',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(tests|reporters|bin|sandbox|selftest|bench|scripts)/' },
    },
    {
      name: 'reporters-not-tests',
      comment: 'the reporters read what tests attached, never the test files or the command line',
      severity: 'error',
      from: { path: '^reporters/' },
      to: { path: '^(tests|bin|sandbox|selftest|bench|scripts)/' },
    },
    {
      name: 'sandbox-independent',
      comment: 'the reference provider shares nothing with the suite it is measured by',
      severity: 'error',
      from: { path: '^sandbox/' },
      to: { path: '^(src|tests|reporters|bin|selftest|bench|scripts)/' },
    },
    {
      name: 'proof-never-imported',
      comment: 'self-tests and benchmarks measure the product; the product never imports them',
      severity: 'error',
      from: { path: '^(src|tests|reporters|bin|sandbox|scripts)/' },
      to: { path: '^(selftest|bench)/' },
    },
    {
      name: 'no-circular',
      comment: 'no module reaches itself again, type imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|reports|selftest/fixtures)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.cjs'] },
  },
};
