// An OAuth-protected MCP server whose tokens expire and can be revoked,
// for tests/proxy_oauth.rs. Built from the MCP TypeScript SDK's own server
// parts (its authorization router, bearer middleware, streamable HTTP
// transport); the SDK's example server issues no refresh tokens, which is
// what this one adds. Not a production authorization server: everything
// is in memory and every authorization is granted at once.
//
//   MCP_PORT, MCP_AUTH_PORT  the two ports (MCP server, authorization server)
//   TOKEN_SECONDS            an access token's lifetime (default 3600)
//   SERVICE_CLIENT_ID, SERVICE_CLIENT_SECRET
//                            a service account: this client gets tokens with
//                            the client credentials grant (its id and secret
//                            in an HTTP Basic header or in the form), no
//                            person and no refresh token
//
// Test-only routes on the authorization server:
//   GET  /test/counts      {"issued": n, "refreshed": n, "rejected": n,
//                           "machine": n (tokens for the service account),
//                           "refused": n (its requests with a wrong secret)}
//   POST /test/revoke-all  every access and refresh token stops working

import { randomUUID } from 'node:crypto';
import express from 'express';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

const mcpPort = Number(process.env.MCP_PORT ?? 3000);
const authPort = Number(process.env.MCP_AUTH_PORT ?? 3001);
const tokenSeconds = Number(process.env.TOKEN_SECONDS ?? 3600);
const mcpUrl = new URL(`http://127.0.0.1:${mcpPort}/mcp`);
const issuerUrl = new URL(`http://127.0.0.1:${authPort}`);

const counts = { issued: 0, refreshed: 0, rejected: 0, machine: 0, refused: 0 };
const service = process.env.SERVICE_CLIENT_ID
  ? { id: process.env.SERVICE_CLIENT_ID, secret: process.env.SERVICE_CLIENT_SECRET ?? '' }
  : null;

class Provider {
  clients = new Map();
  codes = new Map();
  access = new Map(); // token -> {clientId, scopes, expiresAt}
  refresh = new Map(); // token -> {clientId, scopes}

  clientsStore = {
    getClient: async (id) => this.clients.get(id),
    registerClient: async (client) => {
      this.clients.set(client.client_id, client);
      return client;
    },
  };

  async authorize(client, params, res) {
    const code = randomUUID();
    this.codes.set(code, { client, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.toString());
  }

  async challengeForAuthorizationCode(_client, code) {
    const grant = this.codes.get(code);
    if (!grant) throw new InvalidGrantError('unknown authorization code');
    return grant.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client, code) {
    const grant = this.codes.get(code);
    if (!grant || grant.client.client_id !== client.client_id) {
      throw new InvalidGrantError('unknown authorization code');
    }
    this.codes.delete(code);
    return this.issue(client.client_id, grant.params.scopes ?? []);
  }

  async exchangeRefreshToken(client, refreshToken) {
    const held = this.refresh.get(refreshToken);
    if (!held || held.clientId !== client.client_id) {
      counts.rejected += 1;
      throw new InvalidGrantError('refresh token revoked or unknown');
    }
    // Rotated: a refresh token works once.
    this.refresh.delete(refreshToken);
    counts.refreshed += 1;
    return this.issue(held.clientId, held.scopes);
  }

  async verifyAccessToken(token) {
    const held = this.access.get(token);
    if (!held || held.expiresAt < Date.now()) {
      throw new InvalidTokenError('token expired, revoked or unknown');
    }
    return {
      token,
      clientId: held.clientId,
      scopes: held.scopes,
      expiresAt: Math.floor(held.expiresAt / 1000),
    };
  }

  async revokeToken(_client, request) {
    this.access.delete(request.token);
    this.refresh.delete(request.token);
  }

  // A token for the service account: no refresh token, as the grant has
  // none (the client asks again with its credentials).
  issueMachine(clientId, scopes) {
    const accessToken = randomUUID();
    this.access.set(accessToken, { clientId, scopes, expiresAt: Date.now() + tokenSeconds * 1000 });
    counts.machine += 1;
    return { access_token: accessToken, token_type: 'bearer', expires_in: tokenSeconds, scope: scopes.join(' ') };
  }

  issue(clientId, scopes) {
    const accessToken = randomUUID();
    const refreshToken = randomUUID();
    this.access.set(accessToken, { clientId, scopes, expiresAt: Date.now() + tokenSeconds * 1000 });
    this.refresh.set(refreshToken, { clientId, scopes });
    counts.issued += 1;
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: tokenSeconds,
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
  }
}

const provider = new Provider();

const auth = express();
// The client credentials grant, which the SDK's token handler does not
// take: answered here, everything else goes on to it.
auth.post('/token', express.urlencoded({ extended: false }), (req, res, next) => {
  if (req.body?.grant_type !== 'client_credentials') return next();
  let id = req.body.client_id;
  let secret = req.body.client_secret;
  const basic = req.headers.authorization ?? '';
  if (basic.startsWith('Basic ')) {
    const decoded = Buffer.from(basic.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    id = decodeURIComponent(decoded.slice(0, colon));
    secret = decodeURIComponent(decoded.slice(colon + 1));
  }
  if (!service || id !== service.id || secret !== service.secret) {
    counts.refused += 1;
    return res.status(401).json({ error: 'invalid_client', error_description: 'unknown client or wrong secret' });
  }
  const scopes = req.body.scope ? req.body.scope.split(' ') : [];
  res.json(provider.issueMachine(id, scopes));
});
auth.use(mcpAuthRouter({ provider, issuerUrl, scopesSupported: ['mcp:tools'] }));
auth.get('/test/counts', (_req, res) => res.json(counts));
auth.post('/test/revoke-all', (_req, res) => {
  provider.access.clear();
  provider.refresh.clear();
  res.json({ revoked: true });
});
auth.listen(authPort, '127.0.0.1');

const app = createMcpExpressApp();
app.use(
  mcpAuthMetadataRouter({
    oauthMetadata: createOAuthMetadata({ provider, issuerUrl, scopesSupported: ['mcp:tools'] }),
    resourceServerUrl: mcpUrl,
    scopesSupported: ['mcp:tools'],
  }),
);
const bearer = requireBearerAuth({
  verifier: provider,
  requiredScopes: [],
  resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
});

function server() {
  const mcp = new McpServer({ name: 'oauth-refresh-server', version: '1.0.0' });
  mcp.registerTool(
    'greet',
    { description: 'Greets someone by name', inputSchema: { name: z.string() } },
    async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
  );
  return mcp;
}

// Stateless: each request gets a server and a transport of its own, so
// every request is checked against the token it carries.
app.post('/mcp', bearer, async (req, res) => {
  const mcp = server();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    transport.close();
    mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
const notAllowed = (_req, res) =>
  res.status(405).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
app.get('/mcp', bearer, notAllowed);
app.delete('/mcp', bearer, notAllowed);
app.listen(mcpPort, '127.0.0.1');
