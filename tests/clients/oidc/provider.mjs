// A real OpenID provider for the team gateway's tests: panva's certified
// oidc-provider on 127.0.0.1, issuing JWT access tokens through the real
// authorization code + PKCE flow (tests/clients/oidc/token.mjs drives it).
// Not for production: the library's development sign-in page accepts any
// password, and everything but the signing keys lives in memory.
//
//   node provider.mjs --port N --keys FILE
//
//   --port N     where to listen; 0 takes a free port
//   --keys FILE  a JSON file {"keys": [private JWK, ...]}; when missing, one
//                RS256 key with a random kid is made and written there, so a
//                test rotates the keys by deleting the file and starting the
//                provider again on the same port
//
// When listening it prints one JSON line on stdout,
// {"issuer":"http://127.0.0.1:PORT","port":PORT}; its logs go to stderr.
//
// Accounts: alice (groups ["engineering"]), bob (["support"]), carol (no
// groups). Public clients, PKCE, redirect URI http://127.0.0.1/callback:
// mcp-host (access tokens live 600 s) and short-lived (2 s, for tests of an
// expired token). An access token requested with `resource=URL` (at the
// authorization and the token endpoint) is a JWT with aud URL, sub the
// account, scope "mcp" and the account's `groups` (absent for carol). Any
// other name signs in too, as a person without groups.

import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import Provider, { errors } from 'oidc-provider';

// The library prints its notices with console.info, on stdout, which is
// the ready line's alone.
console.info = console.error;
console.log = console.error;

const { values: args } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    keys: { type: 'string' },
  },
});
if (!args.keys) {
  console.error('provider.mjs: --keys FILE is required');
  process.exit(2);
}

const ACCOUNTS = {
  alice: { name: 'Alice', groups: ['engineering'] },
  bob: { name: 'Bob', groups: ['support'] },
  carol: { name: 'Carol', groups: [] },
};

const REDIRECT_URI = 'http://127.0.0.1/callback';
const TOKEN_SECONDS = { 'mcp-host': 600, 'short-lived': 2 };

function loadOrMakeKeys(file) {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwks = {
    keys: [{ ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' }],
  };
  // Renamed into place, so a provider started at the same moment never
  // reads half a file.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(jwks), { mode: 0o600 });
  renameSync(temp, file);
  return jwks;
}

const jwks = loadOrMakeKeys(args.keys);

// The issuer names the port, so listen first and build the provider after.
const server = createServer();
server.listen(Number(args.port), '127.0.0.1');
await new Promise((resolve, reject) => {
  server.once('listening', resolve);
  server.once('error', reject);
});
const { port } = server.address();
const issuer = `http://127.0.0.1:${port}`;

const client = (id) => ({
  client_id: id,
  application_type: 'native',
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code'],
  response_types: ['code'],
  redirect_uris: [REDIRECT_URI],
});

const provider = new Provider(issuer, {
  jwks,
  clients: [client('mcp-host'), client('short-lived')],
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  claims: {
    openid: ['sub'],
    profile: ['name'],
    email: ['email'],
    groups: ['groups'],
  },
  // The development sign-in page takes any name, and the library fails with
  // a server error on an account it cannot find, so any other name is a
  // person without groups.
  async findAccount(_ctx, id) {
    const account = ACCOUNTS[id] ?? { name: id, groups: [] };
    return {
      accountId: id,
      async claims() {
        return { sub: id, name: account.name, email: `${id}@example.test`, groups: account.groups };
      },
    };
  },
  // Claims of the person that a resource server decides on; the library
  // puts them at the top of a JWT access token.
  async extraTokenClaims(_ctx, token) {
    const groups = ACCOUNTS[token.accountId]?.groups;
    return groups?.length ? { groups } : undefined;
  },
  features: {
    devInteractions: { enabled: true },
    resourceIndicators: {
      enabled: true,
      async getResourceServerInfo(_ctx, resource) {
        if (!/^https?:\/\//.test(resource)) throw new errors.InvalidTarget('resource must be an http(s) URL');
        return { scope: 'mcp', accessTokenFormat: 'jwt' };
      },
    },
  },
  // The error as JSON rather than the library's HTML page, so that
  // token.mjs can quote it.
  async renderError(ctx, out) {
    ctx.type = 'json';
    ctx.body = out;
  },
  ttl: {
    AccessToken: (_ctx, _token, tokenClient) => TOKEN_SECONDS[tokenClient.clientId] ?? 600,
    AuthorizationCode: 60,
    IdToken: 600,
    Interaction: 600,
    Grant: 3600,
    Session: 3600,
  },
});

provider.on('server_error', (_ctx, error) => console.error('provider.mjs: server error:', error));
server.on('request', provider.callback());

process.stdout.write(`${JSON.stringify({ issuer, port })}\n`);
console.error(`provider.mjs: ${issuer}, keys ${args.keys} (kid ${jwks.keys.map((k) => k.kid).join(', ')})`);
