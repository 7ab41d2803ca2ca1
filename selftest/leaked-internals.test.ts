/**
 * RESPONSE-ERROR-NO-INTERNALS (src/checks/leaked-internals.ts): each kind of leak real servers make
 * warns, naming the request and a masked excerpt; ordinary error bodies (field paths, URLs, times)
 * pass; and the certification keeps one finding for the run however many answers leaked.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verdictOf } from '../src/checks/check.ts';
import { errorShowsNoInternals, leakIn } from '../src/checks/leaked-internals.ts';
import { buildCertification } from '../src/report/build.ts';
import { registerSecret } from '../src/secrets/registry.ts';
import { parseJson } from '../src/evidence/exchange.ts';
import { answered } from './support/exchanges.ts';
import { RUN_METADATA } from './support/certification.ts';
import { secretRunsIn } from './support/leaks.ts';
import { inOnePass } from './support/one-pass.ts';

const judged = (status: number, body: string, contentType = 'application/json') =>
  errorShowsNoInternals.judge({ exchange: answered(status, body, contentType) });

/** Bodies as real servers leak them, by the kind each must be found as. */
const LEAKS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'a stack frame': {
    'a Node stack in a JSON field': JSON.stringify({
      error: 'internal_error',
      stack:
        'TypeError: x\n    at createWithdraw (/srv/pix/handler.js:212:11)\n    at f (node:internal/process/task_queues:95:5)',
    }),
    'a Python traceback': 'Traceback (most recent call last):\n  File "/app/views.py", line 41, in pay',
    'a Java frame': 'java.lang.NullPointerException\n\tat com.acme.pix.Pay.create(Pay.java:12)',
    'a .NET frame': 'at Acme.Pix.Pay.Create(Request r) in C:\\src\\Pay.cs:line 42',
    'a Ruby frame': "app/controllers/pay_controller.rb:12:in `create'",
    'a Go panic': 'panic: runtime error\ngoroutine 1 [running]:\nmain.pay()',
    'a Rust panic':
      "thread 'tokio-runtime-worker' panicked at src/handlers/pay.rs:88:14:\ncalled `Option::unwrap()` on a `None` value",
  },
  'a server file path': {
    'a PHP path with escaped slashes': '{"message":"include(\\/var\\/www\\/html\\/pay.php): failed"}',
    'a home directory': '{"message":"ENOENT: no such file, open \'/home/deploy/app/keys.json\'"}',
    'a Windows path': '{"message":"Could not find file \'C:\\\\inetpub\\\\wwwroot\\\\pix\\\\keys.json\'"}',
  },
  'SQL error text': {
    PostgreSQL: '{"error":"syntax error at or near \\"WHERE\\""}',
    Oracle: '{"error":"ORA-00001: unique constraint (PIX.CODE_UK) violated"}',
    PDO: '{"error":"SQLSTATE[23000]: Integrity constraint violation"}',
    MySQL: 'You have an error in your SQL syntax; check the manual',
    'a unique constraint':
      '{"message":"duplicate key value violates unique constraint \\"withdrawals_code_key\\""}',
    'an ORM error': '{"name":"SequelizeUniqueConstraintError","message":"Validation error"}',
    'SQL Server':
      '{"error":"Violation of UNIQUE KEY constraint \'UQ_code\'. Cannot insert duplicate key in object \'dbo.w\'."}',
    SQLite: '{"detail":"(sqlite3.OperationalError) no such table: withdrawals"}',
    SQLAlchemy: '{"detail":"sqlalchemy.exc.IntegrityError: UNIQUE failed"}',
    'Active Record': '{"error":"ActiveRecord::RecordNotUnique"}',
    Laravel:
      '{"exception":"Illuminate\\\\Database\\\\QueryException","message":"Integrity constraint violation"}',
  },
  'a framework banner': {
    "Spring Boot's page": '<html><body><h1>Whitelabel Error Page</h1></body></html>',
    "Express's page": '<pre>Error: boom<br> &nbsp; &nbsp;at Layer.handle [as handle_request]</pre>',
    "Jackson's message": '{"message":"JSON parse error: com.fasterxml.jackson.core.JsonParseException"}',
    'a Java exception after a dotted word': '{"error":"handler.java.lang.IllegalStateException"}',
    "Django's debug page":
      "<p>You're seeing this error because you have <code>DEBUG = True</code> in your settings</p>",
    "ASP.NET Core's developer page": '<h1>An unhandled exception occurred while processing the request.</h1>',
    "Rails' routing error": '{"error":"ActionController::RoutingError"}',
    "Symfony's exception": '{"class":"Symfony\\\\Component\\\\HttpKernel\\\\Exception\\\\HttpException"}',
    "nginx's page with its version":
      '<html><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.24.0 (Ubuntu)</center></body></html>',
    "Apache's signature": '<address>Apache/2.4.58 (Debian) Server at pix.example Port 443</address>',
  },
};

/** Error bodies that say what went wrong and nothing of the server. */
const CLEAN: readonly [string, string, string?][] = [
  [
    'a field path',
    '{"error":"invalid_request","message":"body.amount must be a number","field":"body.amount"}',
  ],
  ['a documentation URL', '{"message":"see https://docs.example.com/home/errors/400 for details"}'],
  [
    'a URL with a port and a path',
    '{"message":"Invalid PostBackUrl http://127.0.0.1:4010/opt/hook/AbC?x=1"}',
  ],
  ['a time', '{"error":"unauthorized","message":"token expired at 12:30:45 (2026-12-02T06:00:00Z)"}'],
  [
    'the request path',
    '{"status":400,"error":"Bad Request","path":"/pix/payment","timestamp":"2026-12-02T06:00:00Z"}',
  ],
  [
    'validation errors',
    '{"errors":[{"loc":["body","amount"],"msg":"field required","type":"value_error.missing"}]}',
  ],
  ['a duplicate code', '{"error":"duplicate_code","message":"code ABC-1 was already used at 06:00:01"}'],
  ['a short text', 'Bad Request', 'text/plain'],
  ['a file named in a message', '{"message":"upload receipt.js at least 1 KB"}'],
  [
    "nginx's page without its version",
    '<html><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
    'text/html',
  ],
  [
    'a missing key or table named in words',
    '{"message":"no such key: pix key abc; the table of fees is not set"}',
  ],
  ['a panic named in words', '{"message":"do not panic at 12:00: the payment is queued"}'],
];

describe('RESPONSE-ERROR-NO-INTERNALS', () => {
  it('warns on each kind of leak, naming the request and what it showed', () => {
    for (const [sign, [label, body]] of Object.entries(LEAKS).flatMap(([sign, bodies]) =>
      Object.entries(bodies).map((entry) => [sign, entry] as const),
    )) {
      const violations = judged(500, body, body.startsWith('<') ? 'text/html' : 'application/json');
      assert.equal(verdictOf(violations), 'WARNING', label);
      assert.match(violations[0]?.actual ?? '', /^POST \/pix\/payment answered 500 with /, label);
      assert.ok(violations[0]?.actual.includes(sign), `${label}: ${violations[0]?.actual ?? ''}`);
      assert.equal(violations.length, 1, `${label}: one finding per answer`);
    }
  });

  it('passes ordinary error bodies: field paths, URLs, times, the request path', () => {
    for (const [label, body, contentType] of CLEAN)
      assert.deepEqual(judged(400, body, contentType), [], label);
  });

  it('finds a leak after a body of the largest size a response may have, made of a run a pattern reads', () => {
    const signs = inOnePass(
      'src/checks/leaked-internals.ts',
      'scan.leakIn(text, undefined)?.signs',
      'java.',
      ' java.lang.NullPointerException',
    );
    assert.equal(signs ?? 'did not end', 'a framework banner');
  });

  it('shows the excerpt from just before the first sign, on one line, cut', () => {
    const body = JSON.stringify({
      message: `${'x'.repeat(500)} at f (/srv/a/b.js:1:2)\n at g (/srv/a/c.js:3:4) ${'y'.repeat(500)}`,
    });
    const found = leakIn(body, parseJson(body));
    assert.deepEqual(found?.signs, ['a stack frame', 'a server file path']);
    assert.match(found.excerpt, /^…x+ at f \(\/srv\/a\/b\.js:1:2\) at g \(\/srv\/a\/c\.js:3:4\) y+…$/);
    assert.ok(found.excerpt.length < 260, found.excerpt);
  });

  it('masks a secret in the body before it cuts the excerpt', () => {
    const secret = 'leak-secret-7Hq2Zr9Kp4Wm';
    registerSecret(secret);
    const body = `Error: bad client_secret ${secret}\n    at check (/srv/pix/auth.js:9:1)`;
    const [finding] = judged(403, body, 'text/plain');
    assert.ok(finding !== undefined);
    assert.deepEqual(secretRunsIn(finding.actual, secret), [], finding.actual);
    assert.match(finding.actual, /auth\.js:9:1/);
  });

  it('judges error answers only: a 2xx holds no error body', () => {
    assert.equal(
      errorShowsNoInternals.unjudgeable({ exchange: answered(200, '{"stack":"at f (/srv/a.js:1:2)"}') }),
      'a 200 answer, which is no error',
    );
    assert.equal(errorShowsNoInternals.unjudgeable({ exchange: answered(400) }), undefined);
  });

  it('is one finding for the run, however many answers leaked', () => {
    const finding = (n: number) => ({
      checkId: errorShowsNoInternals.id,
      verdict: 'WARNING' as const,
      expected: 'an error body that shows none of the server internals',
      actual: `POST /pix/payment answered 400 with a stack frame: at f (/srv/${n}.js:1:2)`,
    });
    const report = buildCertification({
      checks: [errorShowsNoInternals],
      clauses: {},
      metadata: RUN_METADATA,
      tests: [
        {
          titlePath: ['live', 'a.spec.ts', 't'],
          status: 'passed',
          durationMs: 1,
          errors: [],
          evaluations: [
            finding(1),
            finding(2),
            { checkId: errorShowsNoInternals.id, verdict: 'PASSED' },
            finding(3),
          ],
          observations: [],
        },
      ],
      suiteErrors: [],
      startTime: new Date('2026-01-02T03:04:05.000Z'),
      durationMs: 1,
    });
    const [result] = report.checks;
    assert.ok(result !== undefined);
    assert.equal(result.verdict, 'WARNING');
    assert.equal(result.evidenceCount, 1);
    assert.deepEqual(result.evidence, [
      {
        verdict: 'WARNING',
        expected: finding(1).expected,
        actual: finding(1).actual,
        reason: 'the first of 3 distinct answers that showed it: one root cause, one finding',
      },
    ]);
  });
});
