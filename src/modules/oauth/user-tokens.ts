import { INVITATION_CLIENT_ID, resourceIdentifiers, resourceServerInfo, type OauthProvider } from './provider.ts';

/** An access and refresh token pair, as the token endpoint would answer it. */
export interface UserTokens {
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  /** seconds the access token is valid */
  expiresIn: number;
  scope: string;
}

/**
 * Issues tokens for a user without an authorization flow: the tokens an accepted invitation answers
 * with (spec 000 "Authentication" 9). They are the authorization server's own objects, made the way
 * its grants make them (oidc-provider's `issueTokens`): a Grant for the user and the first-party
 * client `invitation` with `read write` on every resource of this service, an RS256 JWT access token
 * (audience BASE_URL, `user_id` claim from `extraTokenClaims`, 3600 s) and a refresh token of that
 * grant. So the access token works on /api/v2 and /graphql at once, and the refresh token rotates at
 * the token endpoint like any other (`grant_type=refresh_token&client_id=invitation`, `resource`
 * optional, e.g. BASE_URL/mcp for the tool endpoint); revoking it ends the grant.
 *
 * Call it after the transaction that created the user has committed: the provider stores through the
 * app's own database client (on PGlite a write through it would wait for an open transaction), and
 * it looks the user up again on every refresh.
 */
export interface UserTokenIssuer {
  issue(userId: number): Promise<UserTokens>;
}

const SCOPE = 'read write';
/** What the tokens' `gty` records: how the grant began (the refresh grant appends `refresh_token`). */
const GRANT_TYPE = 'invitation';

export function userTokenIssuer(oauth: OauthProvider, baseUrl: string): UserTokenIssuer {
  const { provider } = oauth;
  const resources = resourceIdentifiers(baseUrl);
  return {
    async issue(userId) {
      const client = await provider.Client.find(INVITATION_CLIENT_ID);
      if (!client) throw new Error(`The first-party client '${INVITATION_CLIENT_ID}' is not configured`);
      const accountId = String(userId);
      const grant = new provider.Grant({ accountId, clientId: client.clientId });
      grant.addOIDCScope(SCOPE);
      for (const resource of resources) grant.addResourceScope(resource, SCOPE);
      const grantId = await grant.save();
      const audience = baseUrl;
      const at = new provider.AccessToken({ accountId, client, grantId, gty: GRANT_TYPE, scope: SCOPE, resourceServer: new provider.ResourceServer(audience, resourceServerInfo(audience)) });
      const rt = new provider.RefreshToken({ accountId, client, grantId, gty: GRANT_TYPE, scope: SCOPE, resource: resources, rotations: 0 });
      const [accessToken, refreshToken] = await Promise.all([at.save(), rt.save()]);
      return { accessToken, refreshToken, tokenType: 'Bearer', expiresIn: at.expiration, scope: SCOPE };
    },
  };
}
