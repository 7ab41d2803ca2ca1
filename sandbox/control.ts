/**
 * The control API for CI scripts, under /_sim/ (openapi/simulator-control.yaml, docs/simulator.md):
 * namespaces, reset, journal, trigger, outcomes. Every call needs Authorization: Bearer <control
 * token>; without it, 401. Answers are typed by the contract, so they cannot drift from it unseen.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ByteBudget } from './bounded.ts';
import { consoleLine } from './console-line.ts';
import type { Deliverer, TriggerRequest } from './deliveries.ts';
import { credentialsOf, type Faults, Namespace, NAMESPACE_NAME, type Provider } from './namespace.ts';
import { outcomeTable, type WebhookEvent } from './outcomes.ts';
import { providerOf } from './profiles.ts';
import { json, type Reply, refuse } from './reply.ts';
import type { components } from './generated/simulator-control.ts';
import type { Secrets } from './secrets.ts';
import { httpUrl } from './webhook.ts';

type Schemas = components['schemas'];

export const CONTROL_PREFIX = '/_sim/';
/** Namespaces one simulator keeps; a CI fleet resets and reuses its names. */
const MAX_NAMESPACES = 1000;
const EVENTS: readonly WebhookEvent[] = ['PAID', 'PROCESSING', 'FAILED'];
const MAX_PROVIDER_FAULTS = 16;

export interface ControlContext {
  readonly controlToken: string;
  readonly namespaces: Map<string, Namespace>;
  readonly deliverer: Deliverer;
  readonly timeScale: number;
  readonly webhookTimeoutMs: number;
  /** What every namespace's journal may hold together. */
  readonly budget: ByteBudget;
  /** Each namespace's client_secret is registered here, to be masked wherever request text is kept or printed. */
  readonly secrets: Secrets;
  /** The simulator's own URL, for the namespace's baseUrl. */
  readonly url: () => string;
}

export function authorised(headers: IncomingHttpHeaders, controlToken: string): boolean {
  const given = Buffer.from(headers.authorization ?? '');
  const expected = Buffer.from(`Bearer ${controlToken}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function parse(raw: Buffer): Record<string, unknown> | undefined {
  if (raw.length === 0) return {};
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The namespace of that name, made on first use (the same name, the same credentials). */
function ensureNamespace(
  context: ControlContext,
  name: string,
  faults: Faults,
  provider: Provider,
): Namespace | Reply {
  const existing = context.namespaces.get(name);
  if (existing !== undefined) return existing;
  if (context.namespaces.size >= MAX_NAMESPACES) {
    return refuse(
      409,
      'too_many_namespaces',
      `This simulator keeps ${MAX_NAMESPACES} namespaces; reuse a name (reset it) or restart it.`,
    );
  }
  const credentials = credentialsOf(name, context.controlToken);
  const created = new Namespace({ name, faults, credentials, provider, budget: context.budget });
  context.secrets.add(created.credentials.clientSecret);
  context.namespaces.set(name, created);
  return created;
}

function createNamespace(context: ControlContext, body: Record<string, unknown>): Reply {
  const { name = `ns-${randomBytes(6).toString('hex')}`, faults = 'realistic', profile } = body;
  if (typeof name !== 'string' || !NAMESPACE_NAME.test(name)) {
    return refuse(
      400,
      'invalid_name',
      'name must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit.',
    );
  }
  const providerFaults = Array.isArray(faults) ? (faults as unknown[]) : [];
  if (
    !(faults === 'realistic' || faults === 'none' || Array.isArray(faults)) ||
    providerFaults.length > MAX_PROVIDER_FAULTS ||
    !providerFaults.every((fault): fault is string => typeof fault === 'string')
  )
    return refuse(
      400,
      'invalid_faults',
      `faults must be "realistic" (the default), "none", or a list of at most ${MAX_PROVIDER_FAULTS} provider faults (pix-certify sandbox --profiles).`,
    );
  if (profile !== undefined && typeof profile !== 'string')
    return refuse(
      400,
      'invalid_profile',
      'profile must be the name of a profile (pix-certify sandbox --profiles).',
    );
  const provider = providerOf(profile, providerFaults);
  if (typeof provider === 'string') return refuse(400, 'invalid_profile', provider);
  const namespace = ensureNamespace(context, name, faults === 'none' ? 'none' : 'realistic', provider);
  if (!(namespace instanceof Namespace)) return namespace;
  const { clientId, clientSecret, certClient, certPem } = namespace.credentials;
  return json(201, {
    name,
    baseUrl: baseUrlOf(context, name),
    clientId,
    clientSecret,
    certClient,
    certPem,
    faults: namespace.faults,
    profile: namespace.provider.profile,
    providerFaults: [...namespace.provider.faults],
  } satisfies Schemas['Namespace']);
}

const baseUrlOf = (context: ControlContext, name: string): string => `${context.url()}/ns/${name}`;

function listNamespaces(context: ControlContext): Reply {
  const namespaces = [...context.namespaces.values()].map(({ name, faults }) => ({
    name,
    baseUrl: baseUrlOf(context, name),
    faults,
  }));
  return json(200, { namespaces } satisfies Schemas['NamespaceList']);
}

function triggerRequest(body: Record<string, unknown>): TriggerRequest | string {
  const { withdrawal, status, copies, delaySeconds, malformed, extraFields, url } = body;
  if (typeof withdrawal !== 'string' || withdrawal === '')
    return 'withdrawal (its id or its client code) is required.';
  if (status !== undefined && !EVENTS.includes(status as WebhookEvent))
    return `status must be one of ${EVENTS.join(', ')}.`;
  if (
    copies !== undefined &&
    !(Number.isInteger(copies) && (copies as number) >= 1 && (copies as number) <= 10)
  )
    return 'copies must be an integer from 1 to 10.';
  if (
    delaySeconds !== undefined &&
    !(typeof delaySeconds === 'number' && delaySeconds >= 0 && delaySeconds <= 60)
  )
    return 'delaySeconds must be a number from 0 to 60.';
  if (url !== undefined && (typeof url !== 'string' || httpUrl(url) === undefined))
    return 'url must be an absolute http(s) URL.';
  return {
    withdrawal,
    ...(status === undefined ? {} : { status: status as WebhookEvent }),
    ...(copies === undefined ? {} : { copies: copies as number }),
    ...(delaySeconds === undefined ? {} : { delaySeconds: delaySeconds }),
    malformed: malformed === true,
    extraFields: extraFields === true,
    ...(url === undefined ? {} : { url }),
  };
}

/** A name or path the caller sent, as an answer echoes it: secrets masked, cut, escaped. */
const echoed = (context: ControlContext, text: string): string => consoleLine(context.secrets.cut(text, 64));

/** The answer to a control call; 204 is a reply with an empty text body. */
export async function control(
  context: ControlContext,
  method: string,
  path: string,
  raw: Buffer,
): Promise<Reply> {
  const body = parse(raw);
  if (body === undefined) return refuse(400, 'invalid_body', 'The body of a control call is a JSON object.');
  if (path === '/_sim/outcomes' && method === 'GET')
    return json(200, outcomeTable(context.timeScale) satisfies Schemas['OutcomeTable']);
  if (path === '/_sim/namespaces' && method === 'POST') return createNamespace(context, body);
  if (path === '/_sim/namespaces' && method === 'GET') return listNamespaces(context);
  const match = /^\/_sim\/namespaces\/([^/]+)(?:\/(reset|journal|trigger))?$/.exec(path);
  const namespace = match === null ? undefined : context.namespaces.get(match[1] ?? '');
  if (match === null)
    return refuse(
      404,
      'not_found',
      `No control call ${echoed(context, method)} ${echoed(context, path)}; see docs/simulator.md.`,
    );
  if (namespace === undefined)
    return refuse(
      404,
      'unknown_namespace',
      `No namespace ${echoed(context, match[1] ?? '')}; create it with POST /_sim/namespaces {"name": "…"}.`,
    );
  const action = match[2];
  if (action === undefined && method === 'DELETE') {
    context.namespaces.delete(namespace.name);
    return { status: 204, text: '' };
  }
  if (action === 'reset' && method === 'POST') {
    namespace.reset();
    return { status: 204, text: '' };
  }
  if (action === 'journal' && method === 'GET')
    return json(200, namespace.journal({ webhookTimeoutMs: context.webhookTimeoutMs }));
  if (action === 'trigger' && method === 'POST') {
    const request = triggerRequest(body);
    if (typeof request === 'string') return refuse(400, 'invalid_trigger', request);
    const withdrawal = namespace.findWithdrawal(request.withdrawal);
    if (withdrawal === undefined)
      return refuse(
        404,
        'unknown_withdrawal',
        `No withdrawal ${echoed(context, request.withdrawal)} in ${namespace.name} (give its id or its client code).`,
      );
    if (withdrawal.url === undefined && request.url === undefined)
      return refuse(400, 'no_url', 'That withdrawal has no PostBackUrl; give url.');
    return json(200, {
      attempts: await context.deliverer.trigger(namespace, withdrawal, request),
    } satisfies Schemas['TriggerAnswer']);
  }
  return refuse(
    405,
    'method_not_allowed',
    `${echoed(context, path)} does not answer ${echoed(context, method)}.`,
  );
}
