// Gets an access token from tests/clients/oidc/provider.mjs the way an MCP
// host's person would: the authorization code flow with PKCE over plain
// HTTP, signing in and consenting on the provider's own pages, then the code
// exchanged at the token endpoint. Prints only the access token on stdout.
//
//   node token.mjs --issuer URL --user alice --resource URL [--client short-lived]
//
// The redirect URI (http://127.0.0.1/callback) has no listener: the code is
// read from the Location header that points there. On any failure it says
// which step failed and the HTTP status on stderr and exits with 1.

import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

const REDIRECT_URI = 'http://127.0.0.1/callback';
// Each page of the flow is a redirect or a form; a sign-in with consent takes seven.
const MAX_STEPS = 20;
// Per request, so that a provider that hangs fails the caller's test
// rather than holding it.
const REQUEST_TIMEOUT_MS = 10_000;

const { values: args } = parseArgs({
  options: {
    issuer: { type: 'string' },
    user: { type: 'string' },
    resource: { type: 'string' },
    client: { type: 'string', default: 'mcp-host' },
  },
});
for (const name of ['issuer', 'user', 'resource']) {
  if (!args[name]) fail('arguments', `--${name} is required`);
}

function fail(step, message) {
  console.error(`token.mjs: ${step}: ${message}`);
  process.exit(1);
}

// Cookies as a browser keeps them for one host: by name and path.
const jar = new Map();

function remember(response) {
  for (const line of response.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    let path = '/';
    let expired = false;
    for (const attribute of attributes) {
      const [key, val = ''] = attribute.split('=');
      if (key.toLowerCase() === 'path') path = val;
      if (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now()) expired = true;
      if (key.toLowerCase() === 'max-age' && Number(val) <= 0) expired = true;
    }
    const id = `${name};${path}`;
    if (expired) jar.delete(id);
    else jar.set(id, { name, value, path });
  }
}

function cookieHeader(url) {
  const { pathname } = new URL(url);
  return [...jar.values()]
    .filter(({ path }) => pathname === path || pathname.startsWith(path.endsWith('/') ? path : `${path}/`))
    .map(({ name, value }) => `${name}=${value}`)
    .join('; ');
}

async function request(step, url, init = {}) {
  let response;
  try {
    response = await fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      headers: { ...init.headers, cookie: cookieHeader(url) },
    });
  } catch (error) {
    fail(step, `${init.method ?? 'GET'} ${url}: ${error.cause?.message ?? error.message}`);
  }
  remember(response);
  return response;
}

async function json(step, response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return fail(step, `HTTP ${response.status}, not JSON: ${text.slice(0, 500)}`);
  }
}

const unescapeHtml = (text) =>
  text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, entity) =>
    ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" })[entity]);

const base64url = (bytes) => Buffer.from(bytes).toString('base64url');

// 1. Where the endpoints are.
const discoveryUrl = new URL('.well-known/openid-configuration', args.issuer.replace(/\/?$/, '/'));
const discoveryResponse = await request('discovery', discoveryUrl.href);
if (!discoveryResponse.ok) fail('discovery', `GET ${discoveryUrl} answered HTTP ${discoveryResponse.status}`);
const discovery = await json('discovery', discoveryResponse);

// 2. The authorization request, then its redirects and pages until the
// provider sends the browser to the redirect URI.
const verifier = base64url(randomBytes(32));
const state = base64url(randomBytes(16));
const authorization = new URL(discovery.authorization_endpoint);
authorization.search = new URLSearchParams({
  client_id: args.client,
  response_type: 'code',
  redirect_uri: REDIRECT_URI,
  scope: 'openid mcp',
  resource: args.resource,
  state,
  code_challenge: base64url(createHash('sha256').update(verifier).digest()),
  code_challenge_method: 'S256',
}).toString();

let step = 'authorization request';
let response = await request(step, authorization.href);
let url = authorization.href;
let signedIn = false;
let callback;
for (let i = 0; i < MAX_STEPS && !callback; i += 1) {
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get('location');
    if (!location) fail(step, `HTTP ${response.status} without a Location`);
    const next = new URL(location, url);
    if (next.href.startsWith(REDIRECT_URI)) {
      callback = next;
      break;
    }
    url = next.href;
    response = await request(step, url);
    continue;
  }
  const page = await response.text();
  if (!response.ok) fail(step, `${url} answered HTTP ${response.status}: ${page.slice(0, 500)}`);
  const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1];
  const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
  if (!prompt || !action) fail(step, `${url} is neither a redirect nor a sign-in or consent form`);
  let form;
  if (prompt === 'login') {
    if (signedIn) fail('login form', `signed in as ${args.user}, and the provider asked to sign in again`);
    step = 'login form';
    form = { prompt, login: args.user, password: 'any' };
    signedIn = true;
  } else if (prompt === 'consent') {
    step = 'consent form';
    form = { prompt };
  } else {
    fail(step, `unexpected prompt ${prompt} at ${url}`);
  }
  url = new URL(unescapeHtml(action), url).href;
  response = await request(step, url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}
if (!callback) fail(step, `no redirect to ${REDIRECT_URI} after ${MAX_STEPS} requests`);

const error = callback.searchParams.get('error');
if (error) fail('authorization', `${error}: ${callback.searchParams.get('error_description') ?? ''}`);
if (callback.searchParams.get('state') !== state) fail('authorization', 'the state came back changed');
const iss = callback.searchParams.get('iss');
if (iss !== null && iss !== discovery.issuer) fail('authorization', `the response came from ${iss}, not ${discovery.issuer}`);
const code = callback.searchParams.get('code');
if (!code) fail('authorization', `no code in ${callback}`);

// 3. The code for a token. The resource is asked for again: with the openid
// scope and no resource, the provider would issue a token for its own
// userinfo endpoint instead.
const tokenResponse = await request('token request', discovery.token_endpoint, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: args.client,
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
    resource: args.resource,
  }).toString(),
});
const tokens = await json('token request', tokenResponse);
if (!tokenResponse.ok || !tokens.access_token) {
  fail('token request', `HTTP ${tokenResponse.status}: ${JSON.stringify(tokens)}`);
}
process.stdout.write(`${tokens.access_token}\n`);
