import type {
  AppInfo,
  AuditFilter,
  AuditPage,
  ChangeEvent,
  ConcernDefinition,
  Decision,
  Host,
  HostStatus,
  HostTransport,
  HostWrite,
  ImportReport,
  LabelEdit,
  LabelsView,
  NewServer,
  PrimitiveRow,
  ProfileEdit,
  ProfileSummary,
  ProfileView,
  QuarantinedTool,
  RegistryPrepared,
  RegistryRequest,
  RegistrySearched,
  RegistryShown,
  RouteReport,
  Routed,
  ServerRow,
  Settings,
  SignedIn,
  TaskDetail,
  TaskFilter,
  TaskPage,
  TaskRetry,
  TokenReport,
  UnrouteReport,
} from './types';

type None = Record<string, never>;

/** Every command of the shell: its invoke name, arguments and result. */
export interface Commands {
  app_info: { args: None; result: AppInfo };
  start_notices: { args: None; result: string[] };
  page_error: { args: { message: string }; result: null };
  settings_show: { args: None; result: Settings };
  settings_set_close_to_tray: { args: { on: boolean }; result: Settings };
  settings_set_quarantine: { args: { on: boolean }; result: Settings };
  servers_list: { args: None; result: ServerRow[] };
  server_login: { args: { name: string }; result: SignedIn };
  server_add: { args: { server: NewServer; keepSecrets: boolean }; result: ServerRow[] };
  server_remove: { args: { name: string }; result: ServerRow[] };
  server_set_enabled: { args: { name: string; enabled: boolean }; result: ServerRow[] };
  servers_import_preview: { args: { host: Host; path?: string }; result: ImportReport };
  servers_import: { args: { host: Host; path?: string; keepSecrets: boolean }; result: ImportReport };
  registry_search: { args: { text: string; registry?: string }; result: RegistrySearched };
  registry_show: { args: { name: string; version?: string; registry?: string }; result: RegistryShown };
  registry_prepare: { args: { request: RegistryRequest }; result: RegistryPrepared };
  registry_add: { args: { request: RegistryRequest }; result: ServerRow[] };
  servers_newer: { args: None; result: Record<string, string> };
  catalog_rows: { args: { profile: string }; result: PrimitiveRow[] };
  token_report: { args: { profile: string }; result: TokenReport };
  tool_set_override: {
    args: { exposedName: string; title: string | null; description: string | null };
    result: null;
  };
  concern_definitions: { args: None; result: ConcernDefinition[] };
  labels_view: { args: None; result: LabelsView };
  label_edit: { args: { edit: LabelEdit }; result: LabelsView };
  labels_set_derive_groups: { args: { on: boolean }; result: LabelsView };
  profiles_list: { args: None; result: ProfileSummary[] };
  profile_show: { args: { name: string }; result: ProfileView };
  profile_create: { args: { name: string; from?: string }; result: ProfileSummary[] };
  profile_rename: { args: { from: string; to: string }; result: ProfileSummary[] };
  profile_delete: { args: { name: string }; result: ProfileSummary[] };
  profile_make_active: { args: { name: string }; result: ProfileSummary[] };
  profile_edit: { args: { name: string; edit: ProfileEdit }; result: ProfileView };
  pattern_check: { args: { pattern: string }; result: null };
  quarantine_list: { args: None; result: QuarantinedTool[] };
  quarantine_approve: { args: { tools: string[] }; result: Decision };
  quarantine_keep_hidden: { args: { tools: string[] }; result: Decision };
  tasks_list: { args: { filter: TaskFilter }; result: TaskPage };
  task_show: { args: { id: string }; result: TaskDetail };
  task_retry: { args: { id: string; force: boolean; profile: string }; result: TaskRetry };
  tool_try: { args: { profile: string; name: string; arguments: Record<string, unknown> }; result: TaskRetry };
  task_cancel: { args: { id: string }; result: null };
  audit_list: { args: { filter: AuditFilter }; result: AuditPage };
  /** The snippet as text in the host's own format (JSON, TOML or YAML). */
  host_snippet: {
    args: { host: Host; transport: HostTransport; profile: string };
    result: string;
  };
  host_write: {
    args: { host: Host; transport: HostTransport; profile: string; path?: string };
    result: HostWrite;
  };
  hosts_list: { args: None; result: HostStatus[] };
  /** `profile` null: the host's own, named after it. */
  host_route: {
    args: { host: Host; transport: HostTransport; profile: string | null; keepSecrets: boolean };
    result: RouteReport;
  };
  hosts_route_all: { args: { transport: HostTransport; keepSecrets: boolean }; result: Routed[] };
  host_unroute: { args: { host: Host }; result: UnrouteReport };
}

export type Command = keyof Commands;
export type Args<C extends Command> = Commands[C]['args'];
export type Result<C extends Command> = Commands[C]['result'];

/** What the page needs of the shell. The app runs on Tauri's; tests on a fake. */
export interface Backend {
  invoke<C extends Command>(command: C, args: Args<C>): Promise<Result<C>>;
  /** Calls `handler` on every `sieve://changed` event; resolves to a stop function. */
  listen(handler: (event: ChangeEvent) => void): Promise<() => void>;
}
