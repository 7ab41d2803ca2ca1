/**
 * POST /pix/payment (§4.2): authenticate the client and its token (§5.2), check the withdraw request
 * (§2.1), apply check_code, and accept. An accepted withdrawal calls for a webhook (§6).
 */
import { type Behaviour, WITHDRAW_FIELD_TYPES, type WithdrawField } from './behaviour.ts';
import { judgeCredential, SANDBOX_CREDENTIALS } from './credentials.ts';
import type { Invented } from './invented.ts';
import { outcomeAnswer } from './outcome-answer.ts';
import { limitedOnce, outcomeOf } from './outcomes.ts';
import { json, type Outcome, type Reply, refuse, serverError, text } from './reply.ts';
import { headerOf, judgeAccept, type SandboxRequest } from './request.ts';
import type { ScenarioState, TokenStore } from './state.ts';
import { httpUrl } from './webhook.ts';

type WithdrawBody = Readonly<Record<string, unknown>>;

const FIELDS = Object.keys(WITHDRAW_FIELD_TYPES) as WithdrawField[];
/** The key types of the central bank's key directory (docs/pix-domain.md). */
const KEY_TYPES: readonly string[] = ['CPF', 'CNPJ', 'PHONE', 'EMAIL', 'EVP'];
/** Pix messages carry names of at most 140 characters (docs/pix-domain.md). */
const NAME_MAX_LENGTH = 140;
const TWO_DECIMALS = /^\d+(\.\d{1,2})?$/;

export function createWithdraw(
  request: SandboxRequest,
  behaviour: Behaviour,
  state: ScenarioState,
  invented: Invented,
): Outcome {
  const refusal = authenticate(request, behaviour, state.tokens);
  if (refusal !== undefined) return refused(refusal, request, behaviour, invented);
  const checked = checkBody(request.body, behaviour, state);
  if ('refusal' in checked) return refused(checked.refusal, request, behaviour, invented);
  const id = behaviour.withdrawalId === 'status' ? 'status' : invented.withdrawalId();
  return accept(checked.body, behaviour, state, id);
}

function authenticate(request: SandboxRequest, behaviour: Behaviour, tokens: TokenStore): Reply | undefined {
  return (
    judgeAccept(request, behaviour) ??
    judgeCredential(
      { header: 'client_id', value: headerOf(request, 'client_id'), expected: SANDBOX_CREDENTIALS.clientId },
      behaviour.paymentClientId,
      behaviour,
    ) ??
    judgeCredential(
      {
        header: 'client_secret',
        value: headerOf(request, 'client_secret'),
        expected: SANDBOX_CREDENTIALS.clientSecret,
      },
      behaviour.clientSecret,
      behaviour,
    ) ??
    judgeBearer(headerOf(request, 'authorization'), behaviour, tokens)
  );
}

function unauthorized(message: string): Reply {
  return refuse(401, 'unauthorized', message, { 'www-authenticate': 'Bearer realm="pix-sandbox"' });
}

/** §5.2: Authorization: Bearer <ACCESS_TOKEN>, with a token this scenario issued and still honours. */
function judgeBearer(
  authorization: string | undefined,
  behaviour: Behaviour,
  tokens: TokenStore,
): Reply | undefined {
  if (authorization === undefined || authorization === '') {
    return behaviour.authorization === 'ignored-when-missing'
      ? undefined
      : unauthorized('The Authorization header is required.');
  }
  const [, scheme = '', token = ''] = /^(\S+)\s+(\S+)$/.exec(authorization.trim()) ?? [];
  // Authentication schemes are case-insensitive (RFC 9110 §11.1).
  if (scheme.toLowerCase() !== 'bearer' && behaviour.authorization !== 'any-scheme') {
    return unauthorized('Authorization must be Bearer <ACCESS_TOKEN>.');
  }
  if (behaviour.authorization === 'any-token') return undefined;
  const { tokenUses, tokenDiesAfterSeconds, tokenCompare } = behaviour;
  return tokens.authorise(token, tokenUses === 'once', tokenDiesAfterSeconds, undefined, tokenCompare)
    ? undefined
    : unauthorized('The access token is not valid or has expired.');
}

function parseObject(raw: Buffer): WithdrawBody | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as WithdrawBody)
      : undefined;
  } catch {
    return undefined;
  }
}

function checkBody(
  raw: Buffer,
  behaviour: Behaviour,
  state: ScenarioState,
): { body: WithdrawBody } | { refusal: Reply } {
  const badRequest = (error: string, message: string): { refusal: Reply } => ({
    refusal: refuse(behaviour.bodyRefusal, error, message),
  });
  const parsed = parseObject(raw);
  const body =
    parsed !== undefined && behaviour.callbackField === 'any-case' ? callbackAnyCase(parsed) : parsed;
  if (body === undefined) {
    if (behaviour.unparsableBody === 'accept') return { body: {} };
    if (behaviour.unparsableBody === 'server-error') {
      return { refusal: serverError('failed to read the body') };
    }
    return badRequest('invalid_body', 'The body must be a JSON object (§2.1).');
  }
  const wronglyTyped = FIELDS.find(
    (field) => Object.hasOwn(body, field) && typeof body[field] !== WITHDRAW_FIELD_TYPES[field],
  );
  if (wronglyTyped !== undefined && behaviour.wrongTypes !== 'accept') {
    if (behaviour.wrongTypes === 'server-error') {
      return { refusal: serverError(`failed to read ${wronglyTyped}`) };
    }
    return badRequest(
      'invalid_field_type',
      `${wronglyTyped} must be a ${WITHDRAW_FIELD_TYPES[wronglyTyped]}.`,
    );
  }
  const missing = behaviour.requiredFields.find((field) => !Object.hasOwn(body, field));
  if (missing !== undefined) return badRequest('missing_field', `${missing} is required.`);
  const problem = behaviour.valueRules ? valueProblem(body) : undefined;
  if (problem !== undefined) return badRequest('invalid_field', problem);
  if (isDuplicate(body, behaviour, state.usedCodes)) {
    return {
      refusal: refuse(
        400,
        'duplicate_code',
        'The withdrawal with this code exists already (check_code true, §2.1): this payment was received; wait for its webhook (§6), and never send it again under another code.',
      ),
    };
  }
  return { body };
}

/** The fault's reading: a field spelt PostBackUrl in any case counts as PostBackUrl. */
function callbackAnyCase(body: WithdrawBody): WithdrawBody {
  const spelling = Object.keys(body).find((key) => key.toLowerCase() === 'postbackurl');
  return spelling === undefined ? body : { ...body, PostBackUrl: body[spelling] };
}

/** Rules the document leaves open, read strictly from Pix practice; a field of the wrong type was judged already. */
function valueProblem({ amount, PostBackUrl, key_type, name }: WithdrawBody): string | undefined {
  if (typeof amount === 'number' && !(amount > 0 && TWO_DECIMALS.test(String(amount)))) {
    return 'amount must be greater than 0 with at most two decimals.';
  }
  if (typeof PostBackUrl === 'string' && httpUrl(PostBackUrl) === undefined) {
    return 'PostBackUrl must be an absolute http(s) URL.';
  }
  if (typeof key_type === 'string' && !KEY_TYPES.includes(key_type)) {
    return `key_type must be one of ${KEY_TYPES.join(', ')}.`;
  }
  if (typeof name === 'string' && name.length > NAME_MAX_LENGTH) {
    return `name must have at most ${NAME_MAX_LENGTH} characters.`;
  }
  return undefined;
}

/** §2.1: with check_code true the service looks for another record with the same code; false skips it. */
function isDuplicate(
  body: WithdrawBody,
  behaviour: Behaviour,
  usedCodes: ReadonlyMap<string, number>,
): boolean {
  const acceptedAt = typeof body.code === 'string' ? usedCodes.get(body.code) : undefined;
  if (acceptedAt === undefined) return false;
  if (behaviour.codeMemoryMs !== undefined && Date.now() - acceptedAt > behaviour.codeMemoryMs) return false;
  const checkCode = typeof body.check_code === 'boolean' ? body.check_code : behaviour.checkCodeDefault;
  return behaviour.duplicateCheck === 'always' || (behaviour.duplicateCheck === 'as-asked' && checkCode);
}

/** True the first time a value is seen, and remembered. */
function firstTime(seen: Set<string>, value: string): boolean {
  if (seen.has(value)) return false;
  seen.add(value);
  return true;
}

/** How long a check-then-write store takes to write what it checked. */
const WRITE_AFTER_CHECK_MS = 150;

function accept(body: WithdrawBody, behaviour: Behaviour, state: ScenarioState, id: string): Outcome {
  // A provider failing every withdrawal it would make: nothing recorded, nothing paid, no webhook.
  if (behaviour.acceptedAnswer === 'server-error')
    return { reply: serverError('The withdrawal could not be processed.') };
  const code = typeof body.code === 'string' ? body.code : null;
  const outcome = limitedOnce(outcomeOf(body.amount), code, (first) => firstTime(state.limitedCodes, first));
  const instead = outcomeAnswer(outcome);
  if (instead?.processed === false) return { reply: instead.reply };
  const record = (): void => {
    if (code !== null) state.usedCodes.set(code, Date.now());
  };
  const checkThenWrite = behaviour.codeStore === 'check-then-write';
  if (!checkThenWrite) record();
  const reply =
    behaviour.acceptedAnswer === 'gateway-timeout'
      ? refuse(504, 'gateway_timeout', 'The upstream did not answer in time.')
      : acceptedReply(behaviour, id, code);
  const url = typeof body.PostBackUrl === 'string' ? body.PostBackUrl : undefined;
  const commit = checkThenWrite ? { commit: { afterMs: WRITE_AFTER_CHECK_MS, run: record } } : {};
  // Every profile and scenario meets the outcome table; the amounts a certification sends are all paid.
  if (outcome.name !== 'paid') {
    const withdrawal = { id, code, amount: body.amount, url };
    return {
      reply: instead?.reply ?? reply,
      planned: { withdrawal, webhooks: outcome.webhooks, withheld: outcome.status === null },
      ...commit,
    };
  }
  return {
    reply,
    ...(url === undefined ? {} : { notice: { url, id, code, amount: body.amount } }),
    ...commit,
  };
}

function acceptedReply(behaviour: Behaviour, id: string, code: string | null): Reply {
  const status = behaviour.acceptedStatus;
  switch (behaviour.acceptedReply) {
    case 'reference':
      return json(status, { id, code, status: 'PROCESSING' });
    case 'lenient':
      return json(status, { transaction_id: id, status: 'pending' });
    case 'text':
      return text(status, `id=${id} status=PROCESSING`);
  }
}

/**
 * A refused withdrawal gets no webhook, except under the faults that send one anyway: shaped like a
 * payment, or REJECTED for a body refused with 400; the confusion the rule guards against.
 */
function refused(reply: Reply, request: SandboxRequest, behaviour: Behaviour, invented: Invented): Outcome {
  const { webhookOnRefused } = behaviour;
  const sends = webhookOnRefused === 'always' || (webhookOnRefused === 'bad-request' && reply.status === 400);
  const body = sends ? parseObject(request.body) : undefined;
  if (typeof body?.PostBackUrl !== 'string') return { reply };
  const code = typeof body.code === 'string' ? body.code : null;
  const notice = { url: body.PostBackUrl, id: invented.withdrawalId(), code, amount: body.amount };
  return {
    reply,
    notice: webhookOnRefused === 'bad-request' ? { ...notice, statuses: ['REJECTED'] } : notice,
  };
}
