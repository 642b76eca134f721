import type { Host } from './backend';

/** The hosts MCP Sieve knows the config files of, with their names. */
export const HOSTS: readonly { host: Host; title: string }[] = [
  { host: 'claude-desktop', title: 'Claude Desktop' },
  { host: 'cursor', title: 'Cursor' },
  { host: 'vscode', title: 'VS Code' },
];
