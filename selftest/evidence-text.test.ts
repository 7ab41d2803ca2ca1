/**
 * Mask, then cut (issue 50 item 4): a secret put at each place where evidence text is cut, by the
 * simulator for a client or by a provider echoing it, leaves no run of 8 of its characters in any
 * artifact (certification.html, .json, junit.xml, summary.md) nor in the console's closing lines.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { renderArtifacts } from '../reporters/certification/artifacts.ts';
import { catalogue } from '../src/checks/catalogue.ts';
import { plainNearMisses } from '../src/checks/near-miss.ts';
import { curlLine, describeResponse, parseJson, type Exchange } from '../src/evidence/exchange.ts';
import { boundedJson } from '../src/evidence/shape.ts';
import { buildCertification } from '../src/report/build.ts';
import { writeSealedCertification } from '../src/report/integrity.ts';
import type { Certification } from '../src/report/model.ts';
import { REPORT_FILES } from '../src/run/report-dir.ts';
import { excerpt, redact } from '../src/secrets/redact.ts';
import { registerSecret } from '../src/secrets/registry.ts';
import { documentClauses } from '../src/spec/spec.ts';
import { RUN_METADATA } from './support/certification.ts';
import { clientCertificationOf, openNamespace, simulatorForTests } from './support/simulator-namespace.ts';
import { secretRunsIn } from './support/leaks.ts';
import { temporaryDir } from './support/temporary.ts';

const RUN = 8;

/** Letters and digits only: a run of them cannot turn up by chance in a report's hashes and ids. */
const randomSecret = (): string =>
  randomBytes(96)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 64);

const pad = (length: number): string => 'p'.repeat(length);

/** Every artifact of a certification, written by the writers the runs use, and its console lines. */
async function artifactsOf(report: Certification): Promise<Record<string, string>> {
  const dir = temporaryDir('pix-evidence-');
  const files = {
    html: join(dir, REPORT_FILES.html),
    json: join(dir, REPORT_FILES.json),
    markdown: join(dir, REPORT_FILES.markdown),
    junit: join(dir, REPORT_FILES.junit),
  };
  const artifacts = renderArtifacts(report, files, { width: 100, colour: false });
  await writeFile(files.html, artifacts.html);
  await writeFile(files.markdown, artifacts.markdown);
  await writeFile(files.junit, artifacts.junit);
  await writeSealedCertification(dir, report, undefined);
  const written = await Promise.all(
    Object.entries(files).map(async ([name, path]) => [name, await readFile(path, 'utf8')] as const),
  );
  return { ...Object.fromEntries(written), console: artifacts.console };
}

function assertNoPartOf(secret: string, artifacts: Record<string, string>): void {
  for (const [name, text] of Object.entries(artifacts))
    assert.deepEqual(secretRunsIn(text, secret), [], name);
}

describe('a cut secret', () => {
  it('leaves none of its runs of 8 when masked: cut short, one character short, its last changed', () => {
    const secret = randomSecret();
    registerSecret(secret);
    const [lastChanged, oneShort] = plainNearMisses(secret);
    for (const text of [
      `Accept: application/${secret.slice(0, 20)}.`,
      secret.slice(0, RUN),
      `field ${secret.slice(0, 40)}… and more`,
      `near ${lastChanged?.value ?? ''} and ${oneShort?.value ?? ''}`,
    ]) {
      assert.deepEqual(secretRunsIn(redact(text), secret), [], text);
      assert.match(redact(text), /\*\*\*\(\d+ chars( of a secret)?\)/);
    }
    // The armour of a PEM is public: only its body, registered on its own, is masked.
    registerSecret(`-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----`);
    assert.equal(redact('expected -----BEGIN CERTIFICATE-----'), 'expected -----BEGIN CERTIFICATE-----');
  });

  it('is masked before any cut: an excerpt never ends in part of one', () => {
    const secret = randomSecret();
    registerSecret(secret);
    for (let max = 1; max < 90; max += 7)
      assert.deepEqual(secretRunsIn(excerpt(`${pad(20)}${secret}${pad(20)}`, max), secret), [], String(max));
  });
});

describe('a secret at each cut point, in every artifact and the console', () => {
  const simulator = simulatorForTests();

  it("client mode: the client's secret in its headers, fields, field names and path, as the simulator journals them", async () => {
    const sandbox = simulator();
    const { ns, token } = await openNamespace(sandbox, 'cut-points');
    const secret = ns.clientSecret;
    // What pix-certify client registers before it judges.
    registerSecret(secret);
    const headers = {
      client_id: ns.clientId,
      client_secret: ns.clientSecret,
      Authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      // Each value puts the secret across the simulator's cut (80 characters for Accept).
      Accept: `application/${pad(50)}${secret}`,
      'x-note': `${pad(70)}${secret}`,
    };
    const body = JSON.stringify({
      amount: 0.01,
      code: `${pad(60)}${secret}`,
      name: `${pad(120)}${secret}`,
      key_type: `${pad(20)}${secret}`,
      document: '12345678909',
      key_pix: 'ana@example.com',
      PostBackUrl: `${pad(50)}${secret}`,
      [`${pad(30)}${secret}`]: 1,
      check_code: true,
    });
    for (const path of ['/pix/payment', '/pix/payment', `/pix/${pad(50)}${secret}`])
      await fetch(`${ns.baseUrl}${path}`, { method: 'POST', headers, body });
    const { journal, report } = await clientCertificationOf(sandbox, ns);
    const codes = new Set(journal.requests.flatMap((r) => r.departures.map((d) => d.code)));
    for (const code of ['field-unknown', 'postback-not-absolute', 'path-unknown'] as const)
      assert.ok(codes.has(code), `the simulator journaled ${code}`);

    assertNoPartOf(secret, await artifactsOf(report));
  });

  it('provider mode: the configured secret in the request, and echoed cut short by the provider', async () => {
    const secret = randomSecret();
    registerSecret(secret);
    const fields = {
      code: `${pad(60)}${secret}`,
      name: `${pad(120)}${secret}`,
      key_type: `${pad(20)}${secret}`,
      PostBackUrl: `https://hooks.example.test/${pad(40)}${secret}`,
    };
    const unknownName = `${pad(30)}${secret}`;
    const accept = `application/${pad(50)}${secret}`;
    const request = {
      method: 'POST' as const,
      url: 'https://provider.example.test/pix/payment',
      headers: {
        Accept: accept,
        client_id: 'client',
        client_secret: secret,
        'x-note': `${pad(70)}${secret}`,
      },
      body: JSON.stringify({ amount: 0.01, ...fields, [unknownName]: 1 }),
    };
    // A provider that cuts what it echoes, as the simulator did: Accept at 80, key_type at 40, names at 64.
    const bodyText = JSON.stringify({
      error: `Accept ${accept.slice(0, 80)} is not served`,
      key_type: fields.key_type.slice(0, 40),
      [unknownName.slice(0, 64)]: 'unknown field',
      detail: [fields.code, fields.name, fields.PostBackUrl].map((value) => value.slice(0, 80)).join('; '),
    });
    const exchange: Exchange = {
      operation: 'createWithdraw',
      request,
      response: {
        status: 400,
        headers: {},
        contentType: 'application/json',
        bodyText,
        json: parseJson(bodyText),
      },
      durationMs: 5,
    };
    const check = catalogue('provider')[0];
    assert.ok(check !== undefined);
    const report = buildCertification({
      checks: catalogue('provider'),
      clauses: documentClauses(),
      metadata: RUN_METADATA,
      tests: [
        {
          titlePath: ['cut points'],
          status: 'passed',
          durationMs: 1,
          errors: [],
          evaluations: [
            {
              checkId: check.id,
              verdict: 'FAILED',
              expected: `Accept ${accept}`,
              actual: describeResponse(exchange.response),
              reproduction: curlLine(request, 'createWithdraw'),
            },
          ],
          observations: [
            { topic: 'cut.points', clause: '§2.1', value: boundedJson(exchange.response.json ?? null) },
            { topic: 'cut.text', clause: '§2.1', value: bodyText.slice(0, 150) },
          ],
        },
      ],
      suiteErrors: [],
      startTime: new Date(),
      durationMs: 1,
    });
    assertNoPartOf(secret, await artifactsOf(report));
  });
});
