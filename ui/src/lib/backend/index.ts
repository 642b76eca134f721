// The one seam between the page and the desktop shell: every command as a
// typed function, the change events, and the errors as one class. Nothing
// else in the page imports @tauri-apps; tests swap the shell with setBackend.

import type { Args, Backend, Command, Result } from './commands';
import { tauriBackend } from './tauri';
import type {
  AuditFilter,
  ChangeEvent,
  ErrorCode,
  Host,
  HostTransport,
  LabelEdit,
  NewServer,
  RegistryRequest,
  ProfileEdit,
  TaskFilter,
} from './types';

export type * from './types';
export type { Backend, Commands, Command, Args, Result } from './commands';

let backend: Backend = tauriBackend;

/** Replaces the shell (tests run the stores against a fake). */
export function setBackend(next: Backend): void {
  backend = next;
}

/** A command's failure: a sentence for the person, a code for the page. */
export class BackendError extends Error {
  readonly code: ErrorCode | 'unknown';
  readonly field?: string;

  constructor(code: ErrorCode | 'unknown', message: string, field?: string) {
    super(message);
    this.name = 'BackendError';
    this.code = code;
    this.field = field;
  }
}

function toBackendError(error: unknown): BackendError {
  if (error instanceof BackendError) return error;
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const { code, message, field } = error as { code?: ErrorCode; message: unknown; field?: string };
    return new BackendError(code ?? 'unknown', String(message), field);
  }
  // Tauri itself rejects with a bare string (an unknown command, a bad argument).
  return new BackendError('unknown', String(error));
}

/** The sentence to show for any failure, never a stack. */
export function messageOf(error: unknown): string {
  return toBackendError(error).message;
}

async function call<C extends Command>(command: C, args: Args<C>): Promise<Result<C>> {
  try {
    return await backend.invoke(command, args);
  } catch (error) {
    throw toBackendError(error);
  }
}

/** Calls `callback` with every change the shell reports; resolves to a stop function. */
export function onChanged(callback: (event: ChangeEvent) => void): Promise<() => void> {
  return backend.listen(callback);
}

export const appInfo = () => call('app_info', {});
export const startNotices = () => call('start_notices', {});
export const pageError = (message: string) => call('page_error', { message });
export const settingsShow = () => call('settings_show', {});
export const settingsSetCloseToTray = (on: boolean) => call('settings_set_close_to_tray', { on });
export const settingsSetQuarantine = (on: boolean) => call('settings_set_quarantine', { on });

export const serversList = () => call('servers_list', {});
export const serverLogin = (name: string) => call('server_login', { name });
export const serverAdd = (server: NewServer, keepSecrets: boolean) => call('server_add', { server, keepSecrets });
export const serverRemove = (name: string) => call('server_remove', { name });
export const serverSetEnabled = (name: string, enabled: boolean) =>
  call('server_set_enabled', { name, enabled });
export const serversImportPreview = (host: Host, path?: string) =>
  call('servers_import_preview', { host, path });
export const serversImport = (host: Host, path: string | undefined, keepSecrets: boolean) =>
  call('servers_import', { host, path, keepSecrets });

export const registrySearch = (text: string) => call('registry_search', { text });
export const registryShow = (name: string, version?: string) => call('registry_show', { name, version });
export const registryPrepare = (request: RegistryRequest) => call('registry_prepare', { request });
export const serversNewer = () => call('servers_newer', {});
export const registryAdd = (request: RegistryRequest) => call('registry_add', { request });

export const catalogRows = (profile: string) => call('catalog_rows', { profile });
export const tokenReport = (profile: string) => call('token_report', { profile });
export const toolSetOverride = (exposedName: string, title: string | null, description: string | null) =>
  call('tool_set_override', { exposedName, title, description });
export const concernDefinitions = () => call('concern_definitions', {});

export const labelsView = () => call('labels_view', {});
export const labelEdit = (edit: LabelEdit) => call('label_edit', { edit });
export const labelsSetDeriveGroups = (on: boolean) => call('labels_set_derive_groups', { on });

export const profilesList = () => call('profiles_list', {});
export const profileShow = (name: string) => call('profile_show', { name });
export const profileCreate = (name: string, from?: string) => call('profile_create', { name, from });
export const profileRename = (from: string, to: string) => call('profile_rename', { from, to });
export const profileDelete = (name: string) => call('profile_delete', { name });
export const profileMakeActive = (name: string) => call('profile_make_active', { name });
export const profileEdit = (name: string, edit: ProfileEdit) => call('profile_edit', { name, edit });
export const patternCheck = (pattern: string) => call('pattern_check', { pattern });

export const quarantineList = () => call('quarantine_list', {});
export const quarantineApprove = (tools: string[]) => call('quarantine_approve', { tools });
export const quarantineKeepHidden = (tools: string[]) => call('quarantine_keep_hidden', { tools });

export const tasksList = (filter: TaskFilter) => call('tasks_list', { filter });
export const taskShow = (id: string) => call('task_show', { id });
export const taskRetry = (id: string, force: boolean, profile: string) =>
  call('task_retry', { id, force, profile });
export const taskCancel = (id: string) => call('task_cancel', { id });
export const auditList = (filter: AuditFilter) => call('audit_list', { filter });
export const toolTry = (profile: string, name: string, args: Record<string, unknown>) =>
  call('tool_try', { profile, name, arguments: args });

export const hostSnippet = (host: Host, transport: HostTransport, profile: string) =>
  call('host_snippet', { host, transport, profile });
export const hostWrite = (host: Host, transport: HostTransport, profile: string, path?: string) =>
  call('host_write', { host, transport, profile, path });
export const hostsList = () => call('hosts_list', {});
export const hostRoute = (host: Host, transport: HostTransport, profile: string | null, keepSecrets: boolean) =>
  call('host_route', { host, transport, profile, keepSecrets });
export const hostsRouteAll = (transport: HostTransport, keepSecrets: boolean) =>
  call('hosts_route_all', { transport, keepSecrets });
export const hostUnroute = (host: Host) => call('host_unroute', { host });
