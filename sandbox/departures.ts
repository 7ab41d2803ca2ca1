/**
 * The one request validator: every way a request departs from the document, not only the first, for
 * every profile, fault and namespace. What the journal keeps for the client certification, and what
 * a refusal body teaches (the name as the document spells it, the clause, the fix); the behaviour
 * then decides what each departure earns (refusal-status.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  type Behaviour,
  type Comparison,
  sameCredential,
  WITHDRAW_FIELD_TYPES,
  type WithdrawField,
} from './behaviour.ts';
import type { components } from './generated/simulator-control.ts';
import type { TokenState } from './token-store.ts';
import { httpUrl } from './webhook.ts';
import { sameKey } from './public-key.ts';

type Schemas = components['schemas'];
export type DepartureCode = Schemas['DepartureCode'];
export type Departure = Schemas['Departure'];

type CredentialJudgement = Schemas['CredentialJudgement'];

export interface NamespaceCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly certClient: string;
}

export interface ArrivedRequest {
  /** Names in lower case, as node:http gives them. */
  readonly headers: IncomingHttpHeaders;
  /** Names as the client spelt them. */
  readonly headerNames: string[];
  readonly body: Buffer;
  readonly scheme: 'http' | 'https';
  readonly host: string;
  /** Request text as a refusal or the journal may show it: secrets masked, then cut (Secrets.cut). */
  readonly shown: (text: string, max: number) => string;
}

/** What the namespace knows of a bearer token, looked up as its behaviour compares tokens. */
export type TokenLookup = (token: string) => TokenState;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const TWO_DECIMALS = /^\d+(\.\d{1,2})?$/;
/** The key types of the central bank's key directory (docs/pix-domain.md). */
const KEY_TYPES: readonly string[] = ['CPF', 'CNPJ', 'PHONE', 'EMAIL', 'EVP'];
/** Pix messages carry names of at most 140 characters (docs/pix-domain.md). */
const NAME_MAX_LENGTH = 140;
const FIELDS = Object.keys(WITHDRAW_FIELD_TYPES) as WithdrawField[];

function headerValue(request: ArrivedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

const squash = (name: string): string => name.toLowerCase().replace(/[-_\s]/g, '');

/** A header that is the one asked for, spelt otherwise (client-id for client_id). */
function lookAlike(request: ArrivedRequest, name: string): string | undefined {
  return request.headerNames.find(
    (header) => header.toLowerCase() !== name && squash(header) === squash(name),
  );
}

function departure(
  code: DepartureCode,
  name: string,
  clause: string,
  message: string,
  extra: { got?: string | undefined; level?: Departure['level'] } = {},
): Departure {
  const { got, level = 'must' } = extra;
  return { code, name, ...(got === undefined ? {} : { got }), clause, level, message };
}

function isLoopbackHost(hostHeader: string): boolean {
  const host = hostHeader
    .replace(/:\d+$/, '')
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

/** Any request: credentials in clear text beyond this machine. */
export function transportDepartures(request: ArrivedRequest): Departure[] {
  if (request.scheme === 'https' || isLoopbackHost(request.host)) return [];
  return [
    departure(
      'credentials-over-http',
      'base_url',
      '§5',
      `Credentials went over plain http to ${request.host} (§5); use https beyond this machine.`,
      { level: 'should' },
    ),
  ];
}

function acceptDepartures(request: ArrivedRequest, name: 'Accept' | 'accept', clause: string): Departure[] {
  const value = headerValue(request, 'accept');
  if (value === undefined) {
    return [
      departure(
        'accept-missing',
        name,
        clause,
        `${name} is required (${clause}); send ${name}: application/json.`,
      ),
    ];
  }
  const json = value
    .split(',')
    .some((range) => range.split(';')[0]?.trim().toLowerCase() === 'application/json');
  return json
    ? []
    : [
        departure(
          'accept-not-json',
          name,
          clause,
          `${name} must be application/json (${clause}); this request has ${name}: ${request.shown(value, 80)}.`,
        ),
      ];
}

/** client_id or client_secret: present, and the namespace's. */
function idDepartures(
  request: ArrivedRequest,
  name: 'client_id' | 'client_secret',
  expected: string,
  clause: string,
  judged: CredentialJudgement,
  compare: Comparison | undefined,
): Departure[] {
  const value = headerValue(request, name);
  const stem = name === 'client_id' ? 'client-id' : 'client-secret';
  if (value === undefined || value === '') {
    judged[name] = 'missing';
    const got = lookAlike(request, name);
    return [
      departure(
        `${stem}-missing`,
        name,
        clause,
        got === undefined
          ? `${name} is required (${clause}, §5.4: 403); send the ${name} header of this namespace.`
          : `${name} is required (${clause}, §5.4: 403); this request has ${got}: header names are written ${name}, with an underscore.`,
        { got },
      ),
    ];
  }
  if (sameCredential(value, expected, compare)) {
    judged[name] = 'valid';
    return [];
  }
  judged[name] = 'wrong';
  return [
    departure(
      `${stem}-wrong`,
      name,
      '§5.4',
      `${name} is not this namespace's (§5.4: 403); send the ${name} that POST /_sim/namespaces gave for it.`,
    ),
  ];
}

function certDepartures(
  request: ArrivedRequest,
  expected: string,
  judged: CredentialJudgement,
  compare: Comparison | undefined,
): Departure[] {
  const value = headerValue(request, 'cert_client');
  const clause = '§4.1, §2.2';
  if (value === undefined || value === '') {
    judged.cert_client = 'missing';
    const got = lookAlike(request, 'cert_client');
    return [
      departure(
        'cert-client-missing',
        'cert_client',
        clause,
        `cert_client is required (${clause}, §5.4: 403); send the base64 of the certificate public key` +
          (got === undefined ? '.' : `; this request has ${got}: the header is written cert_client.`),
        { got },
      ),
    ];
  }
  if (sameCredential(value, expected, compare)) {
    judged.cert_client = 'valid';
    return [];
  }
  if (!(value.length % 4 === 0 && BASE64.test(value))) {
    judged.cert_client = 'not-base64';
    return [
      departure(
        'cert-client-not-base64',
        'cert_client',
        '§2.2',
        'cert_client must be base64 (§2.2, §5.4: 403); encode the PEM public key file, e.g. base64 -w0 public.pem.',
      ),
    ];
  }
  // The same key as the base64 of its DER rather than of its PEM file: a reading of §2.2 as good as the other.
  if (compare === undefined && sameKey(value, expected)) {
    judged.cert_client = 'valid';
    return [];
  }
  if (Buffer.from(value, 'base64').toString('latin1').includes('PRIVATE KEY')) {
    judged.cert_client = 'private-key';
    return [
      departure(
        'cert-client-private-key',
        'cert_client',
        '§2.2',
        'cert_client carries a PRIVATE key (§2.2 asks for the public key, §5.4: 403); send the public key and treat this private key as exposed.',
      ),
    ];
  }
  judged.cert_client = 'wrong';
  return [
    departure(
      'cert-client-wrong',
      'cert_client',
      '§5.4',
      "cert_client is not this namespace's public key (§5.4: 403); send the base64 of the certPem that POST /_sim/namespaces gave.",
    ),
  ];
}

function bearerDepartures(
  request: ArrivedRequest,
  lookup: TokenLookup,
  judged: CredentialJudgement,
  anyScheme: boolean,
): Departure[] {
  const value = headerValue(request, 'authorization');
  const clause = '§4.2, §5.2';
  if (value === undefined || value === '') {
    judged.token = 'missing';
    return [
      departure(
        'authorization-missing',
        'Authorization',
        clause,
        `Authorization is required (${clause}: 401); send Authorization: Bearer <access_token from POST /auth/token>.`,
      ),
    ];
  }
  const [, scheme = '', token = ''] = /^(\S+)\s+(\S+)$/.exec(value.trim()) ?? [];
  const departures: Departure[] = [];
  // Authentication schemes are case-insensitive (RFC 9110 §11.1).
  if (scheme.toLowerCase() !== 'bearer') {
    judged.token = 'not-bearer';
    const shown = scheme === '' ? 'a value without a scheme' : `the scheme ${request.shown(scheme, 20)}`;
    departures.push(
      departure(
        'authorization-not-bearer',
        'Authorization',
        '§5.2',
        `Authorization must be Bearer <access_token> (§5.2: 401); this request has ${shown}.`,
      ),
    );
    // A provider that takes any scheme still looks the token up; the others stop here.
    if (!anyScheme) return departures;
  }
  const found = lookup(token);
  if (found === undefined) {
    judged.token = 'unknown';
    return [
      ...departures,
      departure(
        'token-unknown',
        'Authorization',
        '§5.2',
        'The Bearer token was not issued by this namespace (§5.2: 401); use the access_token its POST /auth/token answered.',
      ),
    ];
  }
  judged.tokenId = found.id;
  if (found.expired) {
    judged.token = 'expired';
    return [
      ...departures,
      departure(
        'token-expired',
        'Authorization',
        '§5.3',
        'The Bearer token has expired (§5.3: renew it every 7200 s; 401); request a new one from POST /auth/token.',
      ),
    ];
  }
  if (departures.length === 0) judged.token = 'valid';
  return departures;
}

export function tokenRequestDepartures(
  request: ArrivedRequest,
  credentials: NamespaceCredentials,
  behaviour: Behaviour,
): { departures: Departure[]; credentials: CredentialJudgement } {
  const judged: CredentialJudgement = {};
  const { tokenClientId, certClient } = behaviour;
  const departures = [
    ...acceptDepartures(request, 'Accept', '§4.1'),
    ...idDepartures(request, 'client_id', credentials.clientId, '§4.1', judged, tokenClientId.compare),
    ...certDepartures(request, credentials.certClient, judged, certClient.compare),
    ...transportDepartures(request),
  ];
  return { departures, credentials: judged };
}

export function withdrawHeaderDepartures(
  request: ArrivedRequest,
  credentials: NamespaceCredentials,
  lookup: TokenLookup,
  behaviour: Behaviour,
): { departures: Departure[]; credentials: CredentialJudgement } {
  const judged: CredentialJudgement = {};
  const { paymentClientId, clientSecret } = behaviour;
  const anyScheme = behaviour.authorization === 'any-scheme';
  const departures = [
    ...acceptDepartures(request, 'accept', '§4.2'),
    ...idDepartures(request, 'client_id', credentials.clientId, '§4.2', judged, paymentClientId.compare),
    ...idDepartures(request, 'client_secret', credentials.clientSecret, '§4.2', judged, clientSecret.compare),
    ...bearerDepartures(request, lookup, judged, anyScheme),
    ...transportDepartures(request),
  ];
  return { departures, credentials: judged };
}

export type WithdrawBody = Readonly<Record<string, unknown>>;

export function parseBody(raw: Buffer): { value: unknown; json: boolean } {
  try {
    return { value: JSON.parse(raw.toString('utf8')) as unknown, json: true };
  } catch {
    return { value: undefined, json: false };
  }
}

const typeName = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

/** Rules the document leaves open, read as Pix practice has them (docs/pix-domain.md). */
function valueDepartures(body: WithdrawBody, shown: ArrivedRequest['shown']): Departure[] {
  const clause = '§2.1 (not shown)';
  const problems: [string, string][] = [];
  const { amount, key_type, name } = body;
  if (typeof amount === 'number' && !(amount > 0 && TWO_DECIMALS.test(String(amount))))
    problems.push([
      'amount',
      `amount must be greater than 0 with at most two decimals (${clause}; Pix moves cents); this body has ${amount}.`,
    ]);
  if (typeof key_type === 'string' && !KEY_TYPES.includes(key_type))
    problems.push([
      'key_type',
      `key_type must be one of ${KEY_TYPES.join(', ')} (${clause}; the Pix key directory); this body has ${shown(key_type, 40)}.`,
    ]);
  if (typeof name === 'string' && name.length > NAME_MAX_LENGTH)
    problems.push([
      'name',
      `name must have at most ${NAME_MAX_LENGTH} characters (${clause}; Pix messages); this body has ${name.length}.`,
    ]);
  return problems.map(([field, message]) =>
    departure('field-value', field, clause, message, { level: 'should' }),
  );
}

/**
 * The withdraw request (§2.1): a JSON object with each field of the document, spelt as the document
 * spells it and of its type; check_code may be left out (its default: not shown).
 */
export function withdrawBodyDepartures(
  parsed: { value: unknown; json: boolean },
  hostAllowed: (url: URL) => boolean,
  shown: ArrivedRequest['shown'],
  callbackField: Behaviour['callbackField'],
): { departures: Departure[]; body: WithdrawBody | undefined } {
  if (!parsed.json) {
    return {
      body: undefined,
      departures: [
        departure(
          'body-not-json',
          'body',
          '§4.2',
          'The body must be the JSON withdraw request of §2.1 (§4.2); this body is not JSON.',
        ),
      ],
    };
  }
  const { value } = parsed;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      body: undefined,
      departures: [
        departure(
          'body-not-object',
          'body',
          '§2.1',
          `The body must be a JSON object with the fields of §2.1; this body is ${typeName(value)}.`,
        ),
      ],
    };
  }
  const body =
    callbackField === 'any-case' ? callbackAnyCase(value as WithdrawBody) : (value as WithdrawBody);
  const keys = Object.keys(body);
  const departures: Departure[] = [];
  const spelt = new Set<string>();
  for (const field of FIELDS) {
    const expected = WITHDRAW_FIELD_TYPES[field];
    if (Object.hasOwn(body, field)) {
      const got = typeName(body[field]);
      if (got !== expected)
        departures.push(
          departure(
            'field-type',
            field,
            '§2.1',
            `${field} must be a ${expected} (§2.1); this body has a ${got}.`,
          ),
        );
      continue;
    }
    const other = keys.find((key) => key !== field && key.toLowerCase() === field.toLowerCase());
    if (other !== undefined) {
      spelt.add(other);
      departures.push(
        departure(
          'field-case',
          field,
          '§2.1',
          `${field} is required (§2.1); this body has ${other}: field names are case-sensitive.`,
          { got: other },
        ),
      );
    } else if (field !== 'check_code') {
      departures.push(
        departure(
          'field-missing',
          field,
          '§2.1 (required: not shown)',
          `${field} is required (§2.1); add it to the body.`,
          { level: 'should' },
        ),
      );
    }
  }
  for (const key of keys) {
    if (!spelt.has(key) && !(FIELDS as string[]).includes(key))
      departures.push(
        departure(
          'field-unknown',
          shown(key, 64),
          '§2.1',
          `${shown(key, 64)} is not a field of §2.1; the service may ignore or refuse it.`,
          { level: 'observe' },
        ),
      );
  }
  departures.push(...valueDepartures(body, shown));
  const { PostBackUrl } = body;
  if (typeof PostBackUrl === 'string') {
    const url = httpUrl(PostBackUrl);
    if (url === undefined)
      departures.push(
        departure(
          'postback-not-absolute',
          'PostBackUrl',
          '§2.1, §6',
          `PostBackUrl must be an absolute http(s) URL where the webhook is posted (§2.1, §6); this body has ${shown(PostBackUrl, 80)}.`,
        ),
      );
    else if (!hostAllowed(url))
      departures.push(
        departure(
          'postback-host-not-allowed',
          'PostBackUrl',
          '§6',
          `The simulator posts webhooks only to loopback hosts and those PIX_SANDBOX_WEBHOOK_HOSTS names; ${url.hostname} gets none (set PIX_SANDBOX_WEBHOOK_HOSTS=${url.hostname}).`,
          { level: 'observe' },
        ),
      );
  }
  return { departures, body };
}

/** The fault's reading: a field spelt PostBackUrl in any case counts as PostBackUrl. */
function callbackAnyCase(body: WithdrawBody): WithdrawBody {
  const spelling = Object.keys(body).find((key) => key.toLowerCase() === 'postbackurl');
  return spelling === undefined || spelling === 'PostBackUrl'
    ? body
    : { ...body, PostBackUrl: body[spelling] };
}

/** A resend of a code already taken: the payment exists, so the refusal never counsels a new code (a double payout). */
export function duplicateDeparture(code: string, shown: ArrivedRequest['shown']): Departure {
  return departure(
    'code-duplicate',
    'code',
    '§2.1',
    `The withdrawal with code ${shown(code, 80)} exists already (check_code true, §2.1): this payment was received; wait for its webhook (§6), and never send it again under another code.`,
    { level: 'observe' },
  );
}

export function routeDeparture(method: string, path: string, shown: ArrivedRequest['shown']): Departure {
  if (path === '/auth/token' || path === '/pix/payment') {
    return departure(
      'method-not-post',
      'method',
      path === '/auth/token' ? '§4.1' : '§4.2',
      `${path} answers POST only (${path === '/auth/token' ? '§4.1' : '§4.2'}); this request is ${shown(method, 16)}.`,
    );
  }
  return departure(
    'path-unknown',
    'path',
    '§4',
    `There is no operation at ${shown(path, 80)} (§4); the operations are POST <base>/auth/token and POST <base>/pix/payment.`,
  );
}
