// The add-server form's values, and the server they describe.

import type { NewServer, OAuthClient } from '../backend';

/** One KEY=VALUE line of environment variables or headers. */
export interface Pair {
  key: string;
  value: string;
}

export interface ServerDraft {
  name: string;
  transport: 'stdio' | 'http';
  command: string;
  /** One argument per line, so no quoting rules are needed. */
  args: string;
  env: Pair[];
  url: string;
  headers: Pair[];
  /** How to sign in to an HTTP server; all optional. */
  oauth: OAuthDraft;
  /** Keep the env or header values (and a client secret) in the system keychain, not in config.json. */
  keepSecrets: boolean;
}

export interface OAuthDraft {
  clientId: string;
  clientSecret: string;
  /** Separated by spaces, as OAuth writes them. */
  scopes: string;
  clientMetadataUrl: string;
  /** The client's own credentials get the tokens; no one signs in. */
  serviceAccount: boolean;
}

export function emptyDraft(): ServerDraft {
  return {
    name: '',
    transport: 'stdio',
    command: '',
    args: '',
    env: [],
    url: '',
    headers: [],
    oauth: { clientId: '', clientSecret: '', scopes: '', clientMetadataUrl: '', serviceAccount: false },
    keepSecrets: true,
  };
}

/** The `"oauth"` the draft gives, or undefined when it gives none. */
function toOAuth(draft: OAuthDraft): OAuthClient | undefined {
  const oauth: OAuthClient = {};
  const clientId = draft.clientId.trim();
  const scopes = draft.scopes.split(/\s+/).filter((scope) => scope !== '');
  const clientMetadataUrl = draft.clientMetadataUrl.trim();
  if (draft.serviceAccount) {
    if (clientId === '' || draft.clientSecret === '') {
      throw new Error('A service account needs its client ID and client secret.');
    }
    oauth.grant = 'clientCredentials';
  }
  if (clientId !== '') oauth.clientId = clientId;
  if (draft.clientSecret !== '') oauth.clientSecret = draft.clientSecret;
  if (scopes.length > 0) oauth.scopes = scopes;
  if (clientMetadataUrl !== '') oauth.clientMetadataUrl = clientMetadataUrl;
  return Object.keys(oauth).length > 0 ? oauth : undefined;
}

function record(pairs: Pair[], what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of pairs) {
    const name = key.trim();
    if (name === '' && value === '') continue;
    if (name === '') throw new Error(`Every ${what} needs a name.`);
    if (name in out) throw new Error(`The ${what} ${name} is given twice; keep one.`);
    out[name] = value;
  }
  return out;
}

/**
 * The server `draft` describes, or an Error whose message says what to
 * fill in. The shell checks the rest (a taken name, a bad URL).
 */
export function toNewServer(draft: ServerDraft): NewServer {
  const name = draft.name.trim();
  if (name === '') throw new Error('Give the server a name.');
  if (draft.transport === 'stdio') {
    const command = draft.command.trim();
    if (command === '') throw new Error('Give the command that starts the server.');
    const args = draft.args
      .split('\n')
      .map((arg) => arg.trim())
      .filter((arg) => arg !== '');
    return { name, transport: 'stdio', command, args, env: record(draft.env, 'environment variable') };
  }
  const url = draft.url.trim();
  if (url === '') throw new Error('Give the URL of the server.');
  const server: NewServer = { name, transport: 'http', url, headers: record(draft.headers, 'header') };
  const oauth = toOAuth(draft.oauth);
  return oauth === undefined ? server : { ...server, oauth };
}
