import { expect, it } from 'vitest';
import { aRouteReport } from '../backend/fake';
import { describeRoute, describeRouteAll, describeUnroute } from './report';

it('says which profile the host gets, what moved, and where the old file is', () => {
  expect(describeRoute(aRouteReport('cursor', ['github']))).toEqual([
    'Cursor now goes through MCP Sieve with profile cursor, made now from the servers it had.',
    'Moved 1 server from its file behind MCP Sieve: github.',
    'Its file is rewritten; the old one is kept as /home/me/.cursor/mcp.json.bak. Restart Cursor to load it.',
  ]);
});

it('says what was renamed, not added again, left in the file and why, and where the secrets are', () => {
  const report = aRouteReport('vscode', ['github', 'notes', 'search'], {
    profile: 'work',
    profileCreated: false,
    left: [{ name: 'private', reason: 'its env uses ${input:token}, which only VS Code fills in' }],
  });
  report.import.added = ['github'];
  report.import.renamed = [{ from: 'notes', to: 'notes-vscode' }];
  report.import.skipped = [{ name: 'search', reason: 'alreadyPresent', message: 'already in config.json as "brave"' }];
  report.import.secrets = [{ server: 'github', section: 'env', key: 'GITHUB_TOKEN' }];
  report.import.keptSecrets = ['github.env.GITHUB_TOKEN'];
  expect(describeRoute(report)).toEqual([
    'VS Code now goes through MCP Sieve with profile work.',
    'Moved 3 servers from its file behind MCP Sieve: github, notes and search.',
    'notes is notes-vscode in config.json, since a different server has its name.',
    'search was not added again: already in config.json as "brave".',
    'Left in its file, as MCP Sieve cannot run it: private (its env uses ${input:token}, which only VS Code fills in).',
    '1 secret value kept in the system keychain, not in config.json.',
    'Its file is rewritten; the old one is kept as /home/me/.vscode/mcp.json.bak. Restart VS Code to load it.',
  ]);

  report.import.keptSecrets = undefined;
  expect(describeRoute(report)).toContain('The values of github GITHUB_TOKEN are in config.json as its file had them.');
});

it('says when routing again changed nothing', () => {
  const report = aRouteReport('codex', [], {
    profileCreated: false,
    write: { path: '/home/me/.codex/config.toml', backup: null, changed: false },
  });
  expect(describeRoute(report)).toEqual([
    'Codex CLI now goes through MCP Sieve with profile codex.',
    'Its file already said this; nothing was written.',
  ]);
});

it('says what unrouting gave back, what it could not, and when there was no record', () => {
  const write = { path: '/home/me/.cursor/mcp.json', backup: null, changed: true };
  const base = { host: 'cursor' as const, path: write.path, write };
  expect(describeUnroute({ ...base, restored: ['a', 'b'], kept: ['c'], recorded: true })).toEqual([
    "Cursor has its 2 servers back in its file: a and b; MCP Sieve's entry is out.",
    'Not put back, as its file has a server of that name again: c.',
    'Restart Cursor to load it.',
  ]);
  expect(describeUnroute({ ...base, restored: [], kept: [], recorded: true })[0]).toBe(
    'Cursor no longer goes through MCP Sieve; it had no servers of its own to give back.',
  );
  expect(describeUnroute({ ...base, restored: [], kept: [], recorded: false })[0]).toBe(
    "MCP Sieve's entry is out of Cursor's file; there was no record of servers to give back.",
  );
});

it('sums up routing every host, and says when there was none', () => {
  expect(describeRouteAll([])).toEqual(['No host was found on this machine to route.']);
  expect(
    describeRouteAll([
      { host: 'gemini', report: aRouteReport('gemini', ['x']) },
      { host: 'zed', error: { code: 'broken_file', message: 'settings.json:4:1: expected a value' } },
    ]),
  ).toEqual([
    'Routed 1 host through MCP Sieve: Gemini CLI (profile gemini).',
    'Zed was not routed: settings.json:4:1: expected a value',
  ]);
});
