import type { Host } from './backend';

/** The hosts MCP Sieve knows the config files of (DESIGN §11), in the order a person is offered them. */
export const HOSTS: readonly { host: Host; title: string }[] = [
  { host: 'claude-desktop', title: 'Claude Desktop' },
  { host: 'claude-code', title: 'Claude Code' },
  { host: 'cursor', title: 'Cursor' },
  { host: 'vscode', title: 'VS Code' },
  { host: 'windsurf', title: 'Windsurf' },
  { host: 'codex', title: 'Codex CLI' },
  { host: 'gemini', title: 'Gemini CLI' },
  { host: 'qwen', title: 'Qwen Code' },
  { host: 'opencode', title: 'opencode' },
  { host: 'zed', title: 'Zed' },
  { host: 'lmstudio', title: 'LM Studio' },
  { host: 'kiro', title: 'Kiro' },
  { host: 'cline', title: 'Cline' },
  { host: 'continue', title: 'Continue' },
  { host: 'goose', title: 'Goose' },
];

/** The name a person knows `host` by (its id, for one this page does not know yet). */
export function hostTitle(host: string): string {
  return HOSTS.find((known) => known.host === host)?.title ?? host;
}

/** `Claude Code, Codex CLI and Cursor`. */
export function listOf(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** "used by Claude Code, Codex CLI" beside a profile that routed hosts get; null when none do. */
export function usedByText(hosts: readonly string[] | undefined): string | null {
  return hosts?.length ? `used by ${hosts.map(hostTitle).join(', ')}` : null;
}

/** What deleting a profile that routed hosts get does to them (a sentence with a leading space), or ''. */
export function deleteWarning(hosts: readonly string[] | undefined): string {
  if (!hosts?.length) return '';
  const one = hosts.length === 1;
  return ` ${listOf(hosts.map(hostTitle))} ${one ? 'uses' : 'use'} it and would lose ${one ? 'its' : 'their'} tools.`;
}
