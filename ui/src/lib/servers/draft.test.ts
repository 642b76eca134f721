import { expect, it } from 'vitest';
import { emptyDraft, toNewServer, type ServerDraft } from './draft';

const draft = (overrides: Partial<ServerDraft>): ServerDraft => ({ ...emptyDraft(), ...overrides });

it('makes a stdio server: one argument a line, KEY=VALUE pairs as a map, blank lines left out', () => {
  const server = toNewServer(
    draft({
      name: ' github ',
      command: 'npx',
      args: '-y\n\n@modelcontextprotocol/server-github\n',
      env: [
        { key: 'GITHUB_TOKEN', value: 'ghp_secret' },
        { key: '', value: '' },
      ],
    }),
  );
  expect(server).toEqual({
    name: 'github',
    transport: 'stdio',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-github'],
    env: { GITHUB_TOKEN: 'ghp_secret' },
  });
});

it('makes an HTTP server with its headers', () => {
  const server = toNewServer(
    draft({
      name: 'remote',
      transport: 'http',
      url: 'https://example.test/mcp',
      command: 'left over from stdio',
      headers: [{ key: 'Authorization', value: 'Bearer abc' }],
    }),
  );
  expect(server).toEqual({
    name: 'remote',
    transport: 'http',
    url: 'https://example.test/mcp',
    headers: { Authorization: 'Bearer abc' },
  });
});

it('gives an HTTP server the sign-in filled in, and none when it is left blank', () => {
  const base = { name: 'corp', transport: 'http' as const, url: 'https://corp.test/mcp' };
  const oauth = (fields: Partial<ServerDraft['oauth']>) => ({ ...emptyDraft().oauth, ...fields });
  expect(toNewServer(draft({ ...base, oauth: oauth({ scopes: '  ' }) }))).not.toHaveProperty('oauth');
  expect(
    toNewServer(
      draft({
        ...base,
        oauth: oauth({ clientId: ' sieve ', clientSecret: 's3cret', scopes: 'read  write', clientMetadataUrl: '' }),
      }),
    ),
  ).toEqual({
    ...base,
    headers: {},
    oauth: { clientId: 'sieve', clientSecret: 's3cret', scopes: ['read', 'write'] },
  });
  expect(
    toNewServer(draft({ ...base, oauth: oauth({ clientMetadataUrl: 'https://me.test/sieve.json' }) })),
  ).toEqual({ ...base, headers: {}, oauth: { clientMetadataUrl: 'https://me.test/sieve.json' } });
  expect(
    toNewServer(draft({ ...base, oauth: oauth({ serviceAccount: true, clientId: 'robot', clientSecret: 'x' }) })),
  ).toEqual({
    ...base,
    headers: {},
    oauth: { grant: 'clientCredentials', clientId: 'robot', clientSecret: 'x' },
  });
  expect(() => toNewServer(draft({ ...base, oauth: oauth({ serviceAccount: true, clientId: 'robot' }) }))).toThrow(
    'A service account needs its client ID and client secret.',
  );
});

it('says what to fill in', () => {
  expect(() => toNewServer(draft({ command: 'npx' }))).toThrow('Give the server a name.');
  expect(() => toNewServer(draft({ name: 'x' }))).toThrow('Give the command that starts the server.');
  expect(() => toNewServer(draft({ name: 'x', transport: 'http' }))).toThrow('Give the URL of the server.');
  expect(() => toNewServer(draft({ name: 'x', command: 'y', env: [{ key: '', value: 'v' }] }))).toThrow(
    'Every environment variable needs a name.',
  );
  expect(() =>
    toNewServer(
      draft({
        name: 'x',
        command: 'y',
        env: [
          { key: 'A', value: '1' },
          { key: 'A', value: '2' },
        ],
      }),
    ),
  ).toThrow('The environment variable A is given twice; keep one.');
});
