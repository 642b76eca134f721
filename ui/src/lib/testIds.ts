// The `data-testid`s of DESIGN §8: a contract with the end-to-end tests
// and with people's own automation, so they change only with the design.

import type { Host } from './backend';

export const TestId = {
  NavServers: 'nav-servers',
  NavTools: 'nav-tools',
  NavLabels: 'nav-labels',
  NavQuarantine: 'nav-quarantine',
  NavProfiles: 'nav-profiles',
  NavTasks: 'nav-tasks',
  NavAudit: 'nav-audit',
  NavConnect: 'nav-connect',
  /** What changed in the groups the profiles name, said at start. */
  StartNotices: 'start-notices',
  StartNoticesDismiss: 'start-notices-dismiss',
  /** Its text holds the `visible / total` counts. */
  TokenMeter: 'token-meter',
  ProfileSelect: 'profile-select',
  /** A `<select>` of the concern's values plus `any`. */
  ConcernSelect: (concern: string) => `concern-select-${concern}`,
  GroupToggle: (group: string) => `group-toggle-${group}`,
  TagExclude: (tag: string) => `tag-exclude-${tag}`,
  TagExpr: 'tag-expr',
  Disclosure: 'profile-disclosure',
  Pinned: 'profile-pinned',
  /** How a search profile's search ranks, with `data-meaning="true|false"`. */
  SearchRanking: 'profile-search-ranking',
  ToolEditText: (name: string) => `tool-edit-text-${name}`,
  ToolTry: (name: string) => `tool-try-${name}`,
  ToolTryField: (name: string, field: string) => `tool-try-${name}-${field}`,
  ToolTryRun: (name: string) => `tool-try-run-${name}`,
  ToolTryResult: (name: string) => `tool-try-result-${name}`,
  ToolTitle: (name: string) => `tool-title-${name}`,
  ToolDescription: (name: string) => `tool-description-${name}`,
  ToolTextSave: (name: string) => `tool-text-save-${name}`,
  TagExprApply: 'tag-expr-apply',
  ToolSearch: 'tool-search',
  /** With `data-visible="true|false"`. */
  ToolRow: (exposedName: string) => `tool-row-${exposedName}`,
  ToolToggle: (exposedName: string) => `tool-toggle-${exposedName}`,
  /** A tool's checkbox: selected for labelling. */
  ToolSelect: (exposedName: string) => `tool-select-${exposedName}`,
  /** Selects every tool the filters show. */
  ToolSelectAll: 'tool-select-all',
  /** The selection bar's group name (a text input). */
  LabelGroupInput: 'label-group-input',
  /** Adds the selected tools to the typed group. */
  LabelGroupApply: 'label-group-apply',
  /** Takes the selected tools out of the typed group. */
  LabelGroupRemove: 'label-group-remove',
  /** The selection bar's move: a `<select>` of the groups the selected tools are in (derived ones too). */
  LabelMoveFrom: 'label-move-from',
  /** The group to move them to (a text input: an existing group or a new name). */
  LabelMoveTo: 'label-move-to',
  /** Moves the selected tools from the chosen group to the typed one. */
  LabelMoveApply: 'label-move-apply',
  /** The selection bar's tag (a text input), and its two buttons. */
  LabelTagInput: 'label-tag-input',
  LabelTagAdd: 'label-tag-add',
  LabelTagRemove: 'label-tag-remove',
  /** A `<select>` of the concern's values plus `none`: changing it sets the value on the selected tools. */
  LabelConcern: (concern: string) => `label-concern-${concern}`,
  /** The Labels screen: a derived group's rename field (Enter renames; onto an existing group, merges). */
  GroupRename: (group: string) => `group-rename-${group}`,
  /** The switch of `settings.deriveGroups`. */
  DeriveGroups: 'derive-groups',
  /** Overlay number `n` (0-based, as in config.json) as a rule. */
  OverlayRow: (n: number) => `overlay-row-${n}`,
  /** Opens rule `n`'s form, under its row. */
  OverlayEdit: (n: number) => `overlay-edit-${n}`,
  /** Rule `n`'s form: its match pattern (a text input). */
  OverlayMatch: (n: number) => `overlay-match-${n}`,
  /** Rule `n`'s form: lists separated by commas (text inputs). */
  OverlayGroups: (n: number) => `overlay-groups-${n}`,
  OverlayTags: (n: number) => `overlay-tags-${n}`,
  OverlayRemoveGroups: (n: number) => `overlay-remove-groups-${n}`,
  OverlayRemoveTags: (n: number) => `overlay-remove-tags-${n}`,
  /** Rule `n`'s form: a `<select>` of the concern's values plus `''` (not set by the rule) and `none` (cleared). */
  OverlayConcern: (n: number, concern: string) => `overlay-concern-${n}-${concern}`,
  OverlayTitle: (n: number) => `overlay-title-${n}`,
  OverlayDescription: (n: number) => `overlay-description-${n}`,
  /** Writes rule `n`'s form into config.json; the library refuses what is not valid. */
  OverlaySave: (n: number) => `overlay-save-${n}`,
  OverlayCancel: (n: number) => `overlay-cancel-${n}`,
  /** A concern's definition. */
  ConcernDef: (name: string) => `concern-def-${name}`,
  /** With `data-state`. */
  ServerRow: (name: string) => `server-row-${name}`,
  /** The registry search's text input (Enter searches). */
  RegistrySearch: 'registry-search',
  /** A server the search found, by its registry name. */
  RegistryResult: (name: string) => `registry-result-${name}`,
  /** Opens a found server's versions, packages and form. */
  RegistryAdd: (name: string) => `registry-add-${name}`,
  /** A value the chosen server asks for, by name. */
  RegistryInput: (name: string) => `registry-input-${name}`,
  /** Shows the command adding will run. */
  RegistryReview: 'registry-review',
  /** The command adding will run, secrets hidden. */
  RegistryCommand: 'registry-command',
  /** Adds the server whose command is shown. */
  RegistryConfirm: 'registry-confirm',
  /** On a server's row: a newer version its registry has published. */
  ServerNewer: (name: string) => `server-newer-${name}`,
  /** With `data-status`. */
  TaskRow: (id: string) => `task-row-${id}`,
  TaskRetry: (id: string) => `task-retry-${id}`,
  TaskCancel: (id: string) => `task-cancel-${id}`,
  TaskFilterStatus: 'task-filter-status',
  TaskFilterSince: 'task-filter-since',
  /** With `data-status`: `ok`, `error`, `refused`, `cancelled`. */
  AuditRow: (id: number | string) => `audit-row-${id}`,
  AuditFilterStatus: 'audit-filter-status',
  AuditFilterServer: 'audit-filter-server',
  AuditFilterSince: 'audit-filter-since',
  AuditMore: 'audit-more',
  /** No call recorded: says how to turn the audit on. */
  AuditEmpty: 'audit-empty',
  Snippet: (host: Host) => `snippet-${host}`,
  /** A host on the Connect screen, with `data-state`: `absent`, `installed`, `routed`. */
  HostRow: (host: Host) => `host-row-${host}`,
  /** What a host does itself about long tool lists, with `data-offer-search="true|false"`: whether a search profile is worth serving it. */
  HostToolSearch: (host: Host) => `host-tool-search-${host}`,
  /** Routes the host (again) with the profile and transport chosen on its row. */
  HostRoute: (host: Host) => `host-route-${host}`,
  /** Gives a routed host back the servers it had. */
  HostUnroute: (host: Host) => `host-unroute-${host}`,
  /** The profile a host is routed with: a `<select>` of the profiles, `''` for its own. */
  HostProfile: (host: Host) => `host-profile-${host}`,
  /** Routes every host on this machine, each with its own profile. */
  HostsRouteAll: 'hosts-route-all',
  /** Routing's "keep secrets in the system keychain" checkbox. */
  HostsKeepSecrets: 'hosts-keep-secrets',
  /** The import's "keep values out of config.json" checkbox. */
  ImportKeepSecrets: 'import-keep-secrets',
  /** "Sign in" on the row of a server that needs a sign-in. */
  ServerSignIn: (name: string) => `server-sign-in-${name}`,
  /** On a down server's row: when the proxy tries it again. */
  ServerRetry: (name: string) => `server-retry-${name}`,
  /** The add form's "keep values out of config.json" checkbox. */
  ServerKeepSecrets: 'server-keep-secrets',
  /** On the Quarantine button: how many tools wait for review, when any do. */
  QuarantineCount: 'quarantine-count',
  /** With `data-kept-hidden="true|false"`. */
  QuarantineItem: (exposedName: string) => `quarantine-item-${exposedName}`,
  /** The approved definition. */
  QuarantineOld: (exposedName: string) => `quarantine-old-${exposedName}`,
  /** The definition in quarantine. */
  QuarantineNew: (exposedName: string) => `quarantine-new-${exposedName}`,
  QuarantineApprove: (exposedName: string) => `quarantine-approve-${exposedName}`,
  QuarantineKeep: (exposedName: string) => `quarantine-keep-${exposedName}`,
  /** What the scanner found in a quarantined tool (DESIGN §8). */
  ScanFinding: (exposedName: string) => `scan-finding-${exposedName}`,
  QuarantineEmpty: 'quarantine-empty',
  /** The switch of `settings.quarantine`. */
  QuarantineSetting: 'quarantine-setting',
  /** The quarantine badge of a tool's row on the Tools screen. */
  ToolQuarantine: (exposedName: string) => `tool-quarantine-${exposedName}`,
} as const;
