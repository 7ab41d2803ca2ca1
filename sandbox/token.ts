/** POST /auth/token (§4.1, §5.1): a token for the client that presents its client_id and cert_client. */
import type { Behaviour } from './behaviour.ts';
import { judgeCredential, SANDBOX_CREDENTIALS } from './credentials.ts';
import { type Reply, json, serverError, text } from './reply.ts';
import { headerOf, judgeAccept, type SandboxRequest } from './request.ts';
import type { ScenarioState } from './state.ts';

export function createToken(request: SandboxRequest, behaviour: Behaviour, state: ScenarioState): Reply {
  const refusal =
    judgeAccept(request, behaviour) ??
    judgeCredential(
      { header: 'client_id', value: headerOf(request, 'client_id'), expected: SANDBOX_CREDENTIALS.clientId },
      behaviour.tokenClientId,
      behaviour,
    ) ??
    judgeCredential(
      {
        header: 'cert_client',
        value: headerOf(request, 'cert_client'),
        expected: SANDBOX_CREDENTIALS.certClient,
        base64: true,
      },
      behaviour.certClient,
      behaviour,
    );
  if (refusal !== undefined) return refusal;
  if (behaviour.tokenReply === 'server-error') return serverError('The token could not be issued.');
  const lifetime = behaviour.tokenLifetimeSeconds;
  return tokenReply(
    behaviour.tokenReply,
    state.tokens.issue(lifetime, behaviour.tokenForm, behaviour.activeTokens === 'newest'),
    lifetime,
  );
}

function tokenReply(
  shape: Exclude<Behaviour['tokenReply'], 'server-error'>,
  token: string,
  lifetime: number,
): Reply {
  switch (shape) {
    case 'access_token':
      return json(200, { access_token: token, token_type: 'Bearer', expires_in: lifetime });
    case 'token':
      return json(200, { token, expiresIn: lifetime });
    case 'text':
      return text(200, `access_token=${token}`);
    case 'empty-object':
      return json(200, {});
    case 'array':
      return json(200, [token]);
  }
}
