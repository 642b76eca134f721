// The payloads of the shell's commands and events, as sieve_api
// serialises them (camelCase fields, optional fields left out when empty).

/** What every command rejects with: one sentence, and a code to branch on. */
export type ErrorCode = 'invalid' | 'not_found' | 'exists' | 'broken_file' | 'upstream' | 'io';

export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  /** The parameter or field the error is about, where there is one. */
  field?: string;
}

export interface AppInfo {
  home: string;
  httpUrl: string;
  token: string;
  binary: string;
}

// Servers

export type Transport = 'stdio' | 'http' | 'builtin';
export type ServerState = 'connecting' | 'up' | 'down' | 'needs-login' | 'stopped' | 'disabled';

/** What a sign-in did. */
export interface SignedIn {
  server: string;
  url: string;
  /** Where the sign-in is kept. */
  location: string;
}

export interface ServerRow {
  name: string;
  transport: Transport;
  /** The command line, or the URL. */
  target: string;
  enabled: boolean;
  state: ServerState;
  error?: string;
  protocolVersion?: string;
  serverInfo?: Record<string, unknown>;
  /** When the state last changed, ms since the epoch; 0 when not run. A
   * server that is down stays down, with its error, while it is retried. */
  since: number;
  /** While down: when the next attempt starts, ms since the epoch. */
  retryAt?: number;
  tools: number;
  prompts: number;
  resources: number;
  /** Names only: the values are secrets and never leave the shell. */
  env?: string[];
  headers?: string[];
  /** The registry entry it was added from. */
  origin?: RegistryOrigin;
  /** A newer version its registry has published. */
  newerVersion?: string;
}

/** Where a server added from an MCP registry came from. */
export interface RegistryOrigin {
  registry: string;
  name: string;
  version: string;
}

/** A server a registry search found, at its latest version. */
export interface RegistryFound {
  name: string;
  title?: string;
  description: string;
  version: string;
  /** `npm @scope/pkg@1.0.0`. */
  packages: string[];
  /** `streamable-http URL`. */
  remotes: string[];
}

export interface RegistrySearched {
  registry: string;
  servers: RegistryFound[];
}

/** A value an entry asks for. */
export interface RegistryAsked {
  section: 'env' | 'header' | 'arg';
  name: string;
  description: string;
  required: boolean;
  secret: boolean;
  default?: string;
}

/** One server of a registry: a version's entry, its versions, what adding uses and asks. */
export interface RegistryShown {
  registry: string;
  /** The server.json. */
  entry: {
    name: string;
    title?: string;
    description: string;
    version: string;
    packages?: { registryType: string; identifier: string; version?: string; transport: { type: string } }[];
    remotes?: { type: string; url: string }[];
  };
  versions: string[];
  latest: string;
  source?: { kind: 'package' | 'remote'; index: number };
  /** Why it cannot be added. */
  refused?: string;
  asked: RegistryAsked[];
}

/** What the person asks to add. */
export interface RegistryRequest {
  name: string;
  version?: string;
  as?: string;
  registry?: string;
  env: Record<string, string>;
  headers: Record<string, string>;
  args: Record<string, string>;
}

/** What adding will write and run, for the person to confirm. */
export interface RegistryPrepared {
  registry: string;
  name: string;
  version: string;
  key: string;
  /** Secrets shown as `(secret)`. */
  command: string;
  secrets: string[];
  runnerMissing?: string;
}

export type NewServer =
  | {
      name: string;
      transport: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string>;
    }
  | {
      name: string;
      transport: 'http';
      url: string;
      headers: Record<string, string>;
      oauth?: OAuthClient;
    };

/** How MCP Sieve signs in to an HTTP server: `"oauth"` in config.json. */
export interface OAuthClient {
  /** A service account: the client's own credentials, no person. */
  grant?: 'clientCredentials';
  clientId?: string;
  clientSecret?: string;
  scopes?: string[];
  /** Where a Client ID Metadata Document for MCP Sieve is published. */
  clientMetadataUrl?: string;
}

/** The AI hosts of DESIGN §11, by id. */
export type Host =
  | 'claude-desktop'
  | 'claude-code'
  | 'cursor'
  | 'vscode'
  | 'windsurf'
  | 'codex'
  | 'gemini'
  | 'qwen'
  | 'opencode'
  | 'zed'
  | 'lmstudio'
  | 'kiro'
  | 'cline'
  | 'continue'
  | 'goose';

export interface ImportReport {
  source: Host;
  file?: string;
  added: string[];
  renamed: { from: string; to: string }[];
  skipped: { name: string; reason: string; message: string }[];
  /** Env and header values the servers added bring (names only). */
  secrets: { server: string; section: 'env' | 'headers'; key: string }[];
  /** The secrets kept out of config.json, when asked to. */
  keptSecrets?: string[];
}

// Catalog

export type Kind = 'tool' | 'prompt' | 'resource' | 'resourceTemplate';

/** The part of a JSON Schema the "Try" form reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  enum?: unknown[];
  default?: unknown;
}

export interface PrimitiveRow {
  kind: Kind;
  exposedName: string;
  name: string;
  server: string;
  uri: string;
  /** What the host sees: an overlay's title, else the upstream's. */
  title?: string;
  /** What the host sees: an overlay's description, else the upstream's. */
  description?: string;
  /** The upstream's own text, when an overlay replaces it. */
  upstream?: { title: string | null; description: string | null };
  groups: string[];
  /** Which of `groups` the proxy derived from the tool's subject. */
  derivedGroups?: string[];
  /** Why the tool is in each of its derived groups, in words. */
  groupReasons?: Record<string, string>;
  tags: string[];
  /** Which of `tags` the proxy derived from what the tool says it does. */
  derivedTags?: string[];
  concerns: Record<string, string>;
  /** Which of `concerns` the proxy derived. */
  derivedConcerns?: string[];
  /** Why each concern has its value, in words ("cost moderate: ..."). */
  concernReasons?: Record<string, string>;
  annotations?: Record<string, unknown>;
  /** A tool's input schema (JSON Schema), for the "Try" form. */
  inputSchema?: JsonSchema;
  tokens: number;
  visible: boolean;
  /** Every rule that hides it, e.g. `tools.deny "*_delete_*"`. */
  hiddenBy: string[];
  /** Why a tool is in quarantine (`description changed`, `new tool`), while it is. */
  quarantine?: string;
  /** The same rules, each with the profile edit that lifts it, where one does. */
  reasons: HiddenReason[];
  /** What the row's switch writes, on and off. */
  switch: Switch;
}

/**
 * The profile edits of a row's switch: a tool's `setTool`; a prompt's or
 * resource's exposed name out of (`removePattern`) or into (`addPattern`)
 * its own section's deny list.
 */
export interface Switch {
  on: ProfileEdit;
  off: ProfileEdit;
}

/** A rule that hides a row, and the edit of the profile that would lift it. */
export interface HiddenReason {
  text: string;
  fix?: ProfileEdit;
  /** What the button that makes `fix` says; there exactly when `fix` is. */
  label?: string;
  /** The rule is the row's own entry, the one its switch writes. */
  own: boolean;
  /** The quarantine: no profile edit lifts it, an approval does. */
  quarantine: boolean;
}

export interface TokenCount {
  toolsBefore: number;
  toolsAfter: number;
  before: number;
  after: number;
}

export interface TokenReport extends TokenCount {
  profile: string;
  /** In search mode: the tokens of the proxy's two search tools, which `after` includes. */
  search?: number;
  servers: Record<string, TokenCount>;
  /** Per group; a tool counts in each of its groups. */
  groups: Record<string, TokenCount>;
}

export interface ConcernDefinition {
  name: string;
  description?: string;
  /** In order; from the strictest when `ordered`. */
  values: string[];
  default?: string;
  /** A chosen value also keeps the stricter ones (`security: medium` keeps `high`). */
  ordered?: boolean;
}

// Labels

/**
 * What an overlay of config.json adds to (and takes from) every primitive
 * whose exposed name matches `match`.
 */
export interface Overlay {
  match: string;
  groups?: string[];
  tags?: string[];
  concerns?: Record<string, string>;
  removeGroups?: string[];
  removeTags?: string[];
  /** Concerns whose value is cleared. */
  removeConcerns?: string[];
  title?: string;
  description?: string;
}

/** An overlay as a rule: its place in config.json and how many primitives it matches now. */
export interface OverlayRule {
  index: number;
  overlay: Overlay;
  matches: number;
  /** What it adds, in the library's words (`group tickets`, `#slow`, `cost=high`). */
  adds: string[];
  /** What it takes away (`group issues`, `security's value`). */
  removes: string[];
  /** The text hosts see instead of the server's (`title "Issues"`). */
  text: string[];
}

/** A derived group, named as it is now (renames applied), and how many tools it holds. */
export interface GroupCount {
  group: string;
  tools: number;
}

/** The labels of config.json over what the servers list (`sieve_api::labels::view`). */
export interface LabelsView {
  derived: GroupCount[];
  overlays: OverlayRule[];
  /** Groups renamed, old name to new. */
  renames: Record<string, string>;
  /** The concerns in force. */
  concerns: ConcernDefinition[];
  /** config.json declares none, so the built-in security and cost are in force. */
  builtinConcerns: boolean;
  /** `settings.deriveGroups`. */
  deriveGroups: boolean;
}

/** A labelling edit; `tools` are exposed names. Written to config.json as the fewest overlays. */
export type LabelEdit =
  | { op: 'addToGroup'; group: string; tools: string[] }
  | { op: 'removeFromGroup'; group: string; tools: string[] }
  | { op: 'moveToGroup'; from: string; to: string; tools: string[] }
  | { op: 'addTag'; tag: string; tools: string[] }
  | { op: 'removeTag'; tag: string; tools: string[] }
  /** `value: null` clears it. */
  | { op: 'setConcern'; concern: string; value: string | null; tools: string[] }
  /** Onto an existing group, merges them. */
  | { op: 'renameGroup'; from: string; to: string }
  /** Adds a concern, or replaces the one of that name. */
  | { op: 'defineConcern'; concern: ConcernDefinition }
  | { op: 'removeConcern'; name: string }
  | { op: 'removeOverlay'; index: number }
  /**
   * Replaces overlay `index` with `overlay` when it is still `was` (as the
   * person saw it); the library refuses an edit of a rule that changed.
   */
  | { op: 'replaceOverlay'; index: number; was: Overlay; overlay: Overlay };

// Profiles

export interface ProfileSummary {
  name: string;
  description?: string;
  valid: boolean;
  /** The profile hosts that name none get (`/mcp`, `serve` without `--profile`). */
  active: boolean;
  /** Why the file cannot be used, when it is not valid. */
  error?: string;
  /** The hosts routed through MCP Sieve with this profile (left out when none). */
  usedBy?: Host[];
}

/** `config.json`'s settings (defaults filled in). */
export interface Settings {
  separator: string;
  taskRetentionDays: number;
  callTimeoutSeconds: number;
  activeProfile: string;
  /** Closing the window keeps the app serving from the tray. */
  closeToTray: boolean;
  /** New and changed tools are held until approved (DESIGN §9). */
  quarantine: boolean;
}

export type Section = 'tools' | 'resources' | 'prompts';
export type PatternListName = 'allow' | 'deny';

export interface Visibility {
  allow?: string[];
  deny?: string[];
}

/** A profile as parsed (DESIGN §2); every field is optional. */
export interface Profile {
  description?: string;
  servers?: string[];
  tools?: Visibility;
  resources?: Visibility;
  prompts?: Visibility;
  /** A plain list is `any`. */
  groups?: string[] | { any?: string[]; none?: string[] };
  tags?: { all?: string[]; none?: string[]; expr?: string };
  concerns?: Record<string, string>;
  uriPrefixes?: string[];
  /** Absent means true. */
  enforce?: boolean;
  /** Absent means 'list'. */
  disclosure?: 'list' | 'search';
  /** In search mode, the tools still listed (globs on exposed names). */
  pinned?: string[];
}

export type TagState = 'require' | 'exclude' | 'ignore';

/**
 * A profile as the app shows it: the document, and what its fields mean
 * with their defaults filled in by the library.
 */
export interface ProfileView {
  /** The file's content. */
  document: Profile;
  /** Only what is in one of these groups shows (`groups` as a list, or `groups.any`). */
  groupsOnly: string[];
  /** Groups switched off (`groups.none`). */
  groupsOff: string[];
  /** Each tag the profile requires or excludes (never `ignore`), with which. */
  tags: Record<string, TagState>;
  /** Whether hidden primitives are refused when called. */
  enforce: boolean;
  /** Groups the profile names that no server has now, each a sentence. */
  unknownGroups?: string[];
  /** How `sieve__find_tools` ranks on this machine, for a profile in search mode. */
  searchRanking?: SearchRanking;
}

/** Whether the search ranks by meaning (the sentence model was found), said in one sentence. */
export interface SearchRanking {
  meaning: boolean;
  says: string;
}

export type ProfileEdit =
  | { op: 'setConcern'; concern: string; value: string | null }
  | { op: 'setGroup'; group: string; on: boolean }
  | { op: 'setTool'; exposedName: string; on: boolean }
  | { op: 'addPattern'; section: Section; list: PatternListName; pattern: string }
  | { op: 'removePattern'; section: Section; list: PatternListName; pattern: string }
  | { op: 'setTag'; tag: string; state: TagState }
  | { op: 'setTagExpr'; expr: string | null }
  | { op: 'setDisclosure'; disclosure: 'list' | 'search' }
  | { op: 'setPinned'; patterns: string[] }
  | { op: 'setDescription'; description: string }
  | { op: 'setEnforce'; enforce: boolean };

// Tasks

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export type TaskOrder = 'createdAt' | 'lastUpdatedAt';

export interface TaskFilter {
  status: TaskStatus[];
  /** An ISO timestamp or an age such as `1h`, on the last update. */
  since?: string;
  until?: string;
  servers: string[];
  methods: string[];
  orderBy?: TaskOrder;
  ascending: boolean;
  limit?: number;
  cursor?: string;
  /** Only the entries of this signed-in person (a team gateway's). */
  owner?: string;
}

export interface TaskMeta {
  'dev.mcp-sieve/kind': string;
  'dev.mcp-sieve/server': string;
  'dev.mcp-sieve/method': string;
  'dev.mcp-sieve/tool'?: string;
  'dev.mcp-sieve/upstreamTaskId'?: string;
  'dev.mcp-sieve/retryOf'?: string;
  'dev.mcp-sieve/profile'?: string;
  /** The signed-in person who made it (a team gateway's). */
  'dev.mcp-sieve/owner'?: string;
}

export interface Task {
  taskId: string;
  status: TaskStatus;
  createdAt: string;
  lastUpdatedAt: string;
  statusMessage?: string;
  ttl?: number;
  pollInterval?: number;
  _meta: TaskMeta;
}

export interface TaskPage {
  tasks: Task[];
  nextCursor: string | null;
}

export interface TaskDetail extends Task {
  params: unknown;
  result?: unknown;
  /** The ids this entry retried, newest first. */
  retryChain?: string[];
}

// The audit

export type AuditStatus = 'ok' | 'error' | 'refused' | 'cancelled';

export interface AuditFilter {
  /** An ISO timestamp or an age such as `1h`. */
  since?: string;
  until?: string;
  servers: string[];
  status: AuditStatus[];
  /** Tools by the name hosts call them. */
  tools?: string[];
  limit?: number;
  cursor?: string;
}

/** One call a host made through a proxy, as `settings.audit` recorded it. */
export interface AuditCall {
  id: number;
  at: string;
  /** The host's clientInfo and its stdio or HTTP token. */
  who: string;
  profile: string;
  server: string;
  tool: string;
  status: AuditStatus;
  durationMs: number;
  /** Only when `settings.audit` is `{"arguments": true}`. */
  arguments?: unknown;
}

export interface AuditPage {
  calls: AuditCall[];
  nextCursor: string | null;
}

export interface TaskRetry {
  record: Task;
  answer?: unknown;
  error?: { code: string; message: string };
}

// Quarantine

/** The parts of a tool definition that are approved, as `approvals.json` keeps them. */
export interface ToolDefinition {
  name?: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/** A tool held because it is new or changed since it was approved. */
export interface QuarantinedTool {
  server: string;
  /** The upstream's name. */
  name: string;
  exposedName: string;
  /** As `hiddenBy` says it: `quarantined: description changed`. */
  reason: string;
  /** Never approved: the server added it after its first listing. */
  new: boolean;
  /** The parts that differ from the approved definition (`description`, `input schema`, ...). */
  changed: string[];
  /** A person saw this very definition and kept it hidden. */
  keptHidden: boolean;
  /** The definition last approved; null for a new tool. */
  approved: ToolDefinition | null;
  /** The definition in quarantine. */
  pending: ToolDefinition;
  /** What the tool-poisoning scanner found in it that no approval accepted; approving accepts these. */
  findings: ScanFinding[];
}

/** One finding of the tool-poisoning scanner (`mcp-sieve scan --json`). */
export interface ScanFinding {
  /** `hidden-instructions`, `concealment`, `shadowing`, `name-copy`, `invisible-unicode`, `bidi-control`, `encoded-payload`, `role-markers`, `padding`. */
  kind: string;
  /** Where in the definition: `description`, `inputSchema.properties.sidenote.description`. */
  field: string;
  /** The text that shows it. */
  excerpt: string;
  /** What the text does, as the end of a sentence: `asks the model to hand over ~/.ssh`. */
  says: string;
}

/** The exposed names a decision was about. */
export interface Decision {
  tools: string[];
}

// Hosts

export type HostTransport = 'stdio' | 'http';

export interface HostWrite {
  path: string;
  /** The previous file, when there was one and it changed. */
  backup: string | null;
  /** False when the entry was there already, exactly so. */
  changed: boolean;
}

/** Where a host stands: nothing of it here, here, or going through MCP Sieve. */
export type HostState = 'absent' | 'installed' | 'routed';

/** A host as found on this machine (`hosts_list`, every host in order). */
export interface HostStatus {
  host: Host;
  title: string;
  state: HostState;
  /** Its user-wide config file (which may not exist yet). */
  path: string;
  /** The profile MCP Sieve's entry serves, when routed. */
  profile?: string;
  /** How it reaches MCP Sieve, when routed. */
  transport?: HostTransport;
  /** The other servers in its file. */
  servers: string[];
  /** Whether it reads HTTP entries (all but Claude Desktop). */
  takesHttp: boolean;
  /** Why its file does not parse, when it does not; it is then left alone. */
  problem?: string;
  /** What the host does itself about long tool lists (issue 34). */
  toolSearch?: OwnToolSearch;
}

/** Whether a host defers MCP tools behind a tool search of its own, and so whether MCP Sieve's search mode is worth offering. */
export interface OwnToolSearch {
  /** `defers`: on unless told not to; `has`: it has one (on or not unconfirmed); `none`: it lists every tool; `unknown`: not checked. */
  kind: 'defers' | 'has' | 'none' | 'unknown';
  /** The first version that deferred on its own, where found. */
  since?: string;
  /** How it is switched, in the host's words. */
  how?: string;
  /** Where the fact was seen. */
  source?: string;
  offerSearchMode: boolean;
  /** One sentence for a person. */
  advice: string;
}

/** What routing a host through MCP Sieve did. */
export interface RouteReport {
  host: Host;
  path: string;
  /** The profile the host now gets. */
  profile: string;
  /** Whether that profile was made now. */
  profileCreated: boolean;
  /** What importing its servers did to config.json. */
  import: ImportReport;
  /** The servers taken out of its file (kept to give back). */
  moved: string[];
  /** The servers left in its file, each with the reason. */
  left: { name: string; reason: string }[];
  write: HostWrite;
}

/** One host's outcome of routing them all. */
export interface Routed {
  host: Host;
  report?: RouteReport;
  /** Why it was not routed. */
  error?: ErrorPayload;
}

/** What giving a host back its servers did. */
export interface UnrouteReport {
  host: Host;
  path: string;
  /** The servers put back into its file. */
  restored: string[];
  /** Recorded servers not put back: the file has a server of that name again. */
  kept: string[];
  /** False when there was no record of the host: only MCP Sieve's entry came out. */
  recorded: boolean;
  write: HostWrite;
}

// Events

export type ChangeWhat = 'catalog' | 'profile' | 'config' | 'status' | 'tasks' | 'approvals';

/** The payload of `sieve://changed`. */
export interface ChangeEvent {
  what: ChangeWhat;
  name?: string;
}
