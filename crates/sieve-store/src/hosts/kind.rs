//! The AI hosts MCP Sieve knows (DESIGN §11): their ids and names, where
//! each keeps its MCP servers on Linux, macOS and Windows, in which format
//! and under which key, and the program that tells it is installed.

use super::document::{Format, ServerList};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// A host: an AI application that starts or connects to MCP servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum HostKind {
    #[serde(rename = "claude-desktop")]
    ClaudeDesktop,
    #[serde(rename = "claude-code")]
    ClaudeCode,
    #[serde(rename = "cursor")]
    Cursor,
    #[serde(rename = "vscode")]
    VsCode,
    #[serde(rename = "windsurf")]
    Windsurf,
    #[serde(rename = "codex")]
    Codex,
    #[serde(rename = "gemini")]
    Gemini,
    #[serde(rename = "qwen")]
    Qwen,
    #[serde(rename = "opencode")]
    Opencode,
    #[serde(rename = "zed")]
    Zed,
    #[serde(rename = "lmstudio")]
    LmStudio,
    #[serde(rename = "kiro")]
    Kiro,
    #[serde(rename = "cline")]
    Cline,
    #[serde(rename = "continue")]
    Continue,
    #[serde(rename = "goose")]
    Goose,
}

/// The operating systems whose host paths differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Linux,
    MacOs,
    Windows,
}

impl Platform {
    /// The platform this program was built for (the BSDs count as Linux:
    /// the hosts that run there use the same XDG folders).
    pub fn current() -> Platform {
        if cfg!(target_os = "macos") {
            Platform::MacOs
        } else if cfg!(windows) {
            Platform::Windows
        } else {
            Platform::Linux
        }
    }
}

/// The folders the hosts' paths are relative to, and the program search
/// path: everything detection reads of the machine, so that it is a pure
/// function of this value and the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostDirs {
    pub platform: Platform,
    /// The user's home folder.
    pub home_dir: PathBuf,
    /// The platform's configuration folder: `$XDG_CONFIG_HOME` or
    /// `~/.config`, `~/Library/Application Support`, `%APPDATA%`.
    pub config_dir: PathBuf,
    /// The current folder, for project-scoped files (`.mcp.json`,
    /// `.vscode/mcp.json`), when there is one.
    pub cwd: Option<PathBuf>,
    /// `$CODEX_HOME`, which moves Codex's folder.
    pub codex_home: Option<PathBuf>,
    /// The folders of `$PATH`.
    pub path: Vec<PathBuf>,
}

impl HostDirs {
    /// This user's folders, the current folder and `$PATH`; `None` when
    /// the home folder cannot be told.
    pub fn current() -> Option<HostDirs> {
        let dirs = directories::BaseDirs::new()?;
        Some(HostDirs {
            platform: Platform::current(),
            home_dir: dirs.home_dir().to_path_buf(),
            config_dir: dirs.config_dir().to_path_buf(),
            cwd: std::env::current_dir().ok(),
            codex_home: std::env::var_os("CODEX_HOME")
                .filter(|value| !value.is_empty())
                .map(PathBuf::from),
            path: std::env::var_os("PATH")
                .map(|path| std::env::split_paths(&path).collect())
                .unwrap_or_default(),
        })
    }

    /// The folder hosts that follow the XDG convention on every platform
    /// (opencode, Zed and Goose outside Windows) keep their settings in:
    /// the configuration folder on Linux, `~/.config` on macOS.
    fn xdg_config(&self) -> PathBuf {
        match self.platform {
            Platform::Linux => self.config_dir.clone(),
            Platform::MacOs | Platform::Windows => self.home_dir.join(".config"),
        }
    }

    /// Whether `program` is an executable file in a folder of `$PATH`.
    pub fn on_path(&self, program: &str) -> bool {
        let names: Vec<String> = match self.platform {
            Platform::Windows => [".exe", ".cmd", ".bat", ""]
                .iter()
                .map(|suffix| format!("{program}{suffix}"))
                .collect(),
            Platform::Linux | Platform::MacOs => vec![program.to_string()],
        };
        self.path
            .iter()
            .any(|dir| names.iter().any(|name| is_program(&dir.join(name))))
    }
}

fn is_program(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

impl HostKind {
    /// Every host, in the order a person is offered them.
    pub const ALL: [HostKind; 15] = [
        HostKind::ClaudeDesktop,
        HostKind::ClaudeCode,
        HostKind::Cursor,
        HostKind::VsCode,
        HostKind::Windsurf,
        HostKind::Codex,
        HostKind::Gemini,
        HostKind::Qwen,
        HostKind::Opencode,
        HostKind::Zed,
        HostKind::LmStudio,
        HostKind::Kiro,
        HostKind::Cline,
        HostKind::Continue,
        HostKind::Goose,
    ];

    /// The host's id: on the command line, in test ids, in renamed
    /// servers and in `hosts.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            HostKind::ClaudeDesktop => "claude-desktop",
            HostKind::ClaudeCode => "claude-code",
            HostKind::Cursor => "cursor",
            HostKind::VsCode => "vscode",
            HostKind::Windsurf => "windsurf",
            HostKind::Codex => "codex",
            HostKind::Gemini => "gemini",
            HostKind::Qwen => "qwen",
            HostKind::Opencode => "opencode",
            HostKind::Zed => "zed",
            HostKind::LmStudio => "lmstudio",
            HostKind::Kiro => "kiro",
            HostKind::Cline => "cline",
            HostKind::Continue => "continue",
            HostKind::Goose => "goose",
        }
    }

    /// The name a person knows the host by.
    pub fn title(self) -> &'static str {
        match self {
            HostKind::ClaudeDesktop => "Claude Desktop",
            HostKind::ClaudeCode => "Claude Code",
            HostKind::Cursor => "Cursor",
            HostKind::VsCode => "VS Code",
            HostKind::Windsurf => "Windsurf",
            HostKind::Codex => "Codex CLI",
            HostKind::Gemini => "Gemini CLI",
            HostKind::Qwen => "Qwen Code",
            HostKind::Opencode => "opencode",
            HostKind::Zed => "Zed",
            HostKind::LmStudio => "LM Studio",
            HostKind::Kiro => "Kiro",
            HostKind::Cline => "Cline",
            HostKind::Continue => "Continue",
            HostKind::Goose => "Goose",
        }
    }

    /// The syntax of the host's file.
    pub fn format(self) -> Format {
        match self {
            HostKind::Codex => Format::Toml,
            HostKind::Continue | HostKind::Goose => Format::Yaml,
            _ => Format::Json,
        }
    }

    /// Where the host's file keeps its servers: the first is where MCP
    /// Sieve writes; the others are older places the host still reads
    /// (VS Code's `settings.json` shape), looked at when importing.
    pub fn server_lists(self) -> &'static [ServerList] {
        const MCP_SERVERS: ServerList = ServerList::Map(&["mcpServers"]);
        match self {
            HostKind::VsCode => &[
                ServerList::Map(&["servers"]),
                ServerList::Map(&["mcp", "servers"]),
                MCP_SERVERS,
            ],
            HostKind::Codex => &[ServerList::Map(&["mcp_servers"])],
            HostKind::Opencode => &[ServerList::Map(&["mcp"])],
            HostKind::Zed => &[ServerList::Map(&["context_servers"])],
            HostKind::Continue => &[ServerList::List {
                key: "mcpServers",
                name_field: "name",
            }],
            HostKind::Goose => &[ServerList::Map(&["extensions"])],
            _ => &[MCP_SERVERS],
        }
    }

    /// Whether the host reads HTTP entries (a URL with headers) from its
    /// file. Claude Desktop starts local servers only.
    pub fn takes_http(self) -> bool {
        self != HostKind::ClaudeDesktop
    }

    /// The program on `$PATH` that shows the host is installed, for hosts
    /// that have one.
    pub fn program(self) -> Option<&'static str> {
        match self {
            HostKind::ClaudeDesktop | HostKind::Cline | HostKind::Continue => None,
            HostKind::ClaudeCode => Some("claude"),
            HostKind::Cursor => Some("cursor"),
            HostKind::VsCode => Some("code"),
            HostKind::Windsurf => Some("windsurf"),
            HostKind::Codex => Some("codex"),
            HostKind::Gemini => Some("gemini"),
            HostKind::Qwen => Some("qwen"),
            HostKind::Opencode => Some("opencode"),
            HostKind::Zed => Some("zed"),
            HostKind::LmStudio => Some("lms"),
            HostKind::Kiro => Some("kiro"),
            HostKind::Goose => Some("goose"),
        }
    }

    /// The host's user-wide file, where routing writes.
    pub fn user_path(self, dirs: &HostDirs) -> PathBuf {
        let home = &dirs.home_dir;
        let config = &dirs.config_dir;
        match self {
            HostKind::ClaudeDesktop => config.join("Claude").join("claude_desktop_config.json"),
            HostKind::ClaudeCode => home.join(".claude.json"),
            HostKind::Cursor => home.join(".cursor").join("mcp.json"),
            HostKind::VsCode => config.join("Code").join("User").join("mcp.json"),
            HostKind::Windsurf => home
                .join(".codeium")
                .join("windsurf")
                .join("mcp_config.json"),
            HostKind::Codex => dirs
                .codex_home
                .clone()
                .unwrap_or_else(|| home.join(".codex"))
                .join("config.toml"),
            HostKind::Gemini => home.join(".gemini").join("settings.json"),
            HostKind::Qwen => home.join(".qwen").join("settings.json"),
            HostKind::Opencode => {
                let folder = dirs.xdg_config().join("opencode");
                // opencode reads either name; the one the user has wins.
                let commented = folder.join("opencode.jsonc");
                if commented.is_file() {
                    commented
                } else {
                    folder.join("opencode.json")
                }
            }
            HostKind::Zed => match dirs.platform {
                Platform::Windows => config.join("Zed").join("settings.json"),
                Platform::Linux | Platform::MacOs => {
                    dirs.xdg_config().join("zed").join("settings.json")
                }
            },
            HostKind::LmStudio => home.join(".lmstudio").join("mcp.json"),
            HostKind::Kiro => home.join(".kiro").join("settings").join("mcp.json"),
            HostKind::Cline => config
                .join("Code")
                .join("User")
                .join("globalStorage")
                .join("saoudrizwan.claude-dev")
                .join("settings")
                .join("cline_mcp_settings.json"),
            HostKind::Continue => home.join(".continue").join("config.yaml"),
            HostKind::Goose => match dirs.platform {
                Platform::Windows => config
                    .join("Block")
                    .join("goose")
                    .join("config")
                    .join("config.yaml"),
                Platform::Linux | Platform::MacOs => {
                    dirs.xdg_config().join("goose").join("config.yaml")
                }
            },
        }
    }

    /// The host's file inside a project folder, for hosts that have one.
    pub fn project_path(self, project: &Path) -> Option<PathBuf> {
        match self {
            HostKind::ClaudeCode => Some(project.join(".mcp.json")),
            HostKind::Cursor => Some(project.join(".cursor").join("mcp.json")),
            HostKind::VsCode => Some(project.join(".vscode").join("mcp.json")),
            HostKind::Gemini => Some(project.join(".gemini").join("settings.json")),
            HostKind::Qwen => Some(project.join(".qwen").join("settings.json")),
            HostKind::Kiro => Some(project.join(".kiro").join("settings").join("mcp.json")),
            HostKind::Zed => Some(project.join(".zed").join("settings.json")),
            _ => None,
        }
    }

    /// Where the host keeps its servers, most likely first: the user-wide
    /// file, then the current project's.
    pub fn default_paths(self, dirs: &HostDirs) -> Vec<PathBuf> {
        let mut paths = vec![self.user_path(dirs)];
        paths.extend(dirs.cwd.as_deref().and_then(|cwd| self.project_path(cwd)));
        paths
    }

    /// The files to look for when the user names a folder: the host's own
    /// folder (`~/.cursor`) or a project using it.
    pub fn paths_in_folder(self, dir: &Path) -> Vec<PathBuf> {
        let own = self
            .user_path(&HostDirs {
                platform: Platform::current(),
                home_dir: PathBuf::new(),
                config_dir: PathBuf::new(),
                cwd: None,
                codex_home: None,
                path: Vec::new(),
            })
            .file_name()
            .map(|name| dir.join(name));
        own.into_iter().chain(self.project_path(dir)).collect()
    }

    /// A folder whose presence says the host is installed even before it
    /// has a file with servers (`~/.codex`, `~/.gemini`, Claude Desktop's
    /// configuration folder).
    pub fn folder(self, dirs: &HostDirs) -> PathBuf {
        match self {
            HostKind::ClaudeCode => dirs.home_dir.join(".claude"),
            HostKind::Codex => dirs
                .codex_home
                .clone()
                .unwrap_or_else(|| dirs.home_dir.join(".codex")),
            HostKind::Cline => self
                .user_path(dirs)
                .parent()
                .and_then(Path::parent)
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            _ => self
                .user_path(dirs)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        }
    }

    /// Hosts that replace `${..}` variables (`${env:TOKEN}`,
    /// `${input:key}`, `${workspaceFolder}`) when they start a server,
    /// which mcp-sieve does not: such an entry cannot be imported as it
    /// is written. Claude Desktop passes every string as written.
    pub fn expands_variables(self) -> bool {
        matches!(
            self,
            HostKind::Cursor
                | HostKind::VsCode
                | HostKind::ClaudeCode
                | HostKind::Windsurf
                | HostKind::Cline
                | HostKind::Kiro
                | HostKind::Gemini
                | HostKind::Qwen
                | HostKind::Opencode
                | HostKind::Continue
        )
    }
}

impl fmt::Display for HostKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A host name that names none of the hosts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("there is no host {name:?}; name one of {}", HostKind::ALL.map(HostKind::as_str).join(", "))]
#[non_exhaustive]
pub struct UnknownHost {
    pub name: String,
}

impl std::str::FromStr for HostKind {
    type Err = UnknownHost;

    fn from_str(name: &str) -> Result<HostKind, UnknownHost> {
        HostKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
            .ok_or_else(|| UnknownHost {
                name: name.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(platform: Platform) -> HostDirs {
        let (home, config) = match platform {
            Platform::Linux => ("/home/ana", "/home/ana/.config"),
            Platform::MacOs => ("/Users/ana", "/Users/ana/Library/Application Support"),
            Platform::Windows => ("C:/Users/ana", "C:/Users/ana/AppData/Roaming"),
        };
        HostDirs {
            platform,
            home_dir: home.into(),
            config_dir: config.into(),
            cwd: None,
            codex_home: None,
            path: Vec::new(),
        }
    }

    fn path_of(kind: HostKind, platform: Platform) -> String {
        kind.user_path(&dirs(platform))
            .to_string_lossy()
            .replace('\\', "/")
    }

    #[test]
    fn every_host_has_a_file_on_every_platform() {
        let expected: [(HostKind, [&str; 3]); 15] = [
            (
                HostKind::ClaudeDesktop,
                [
                    "/home/ana/.config/Claude/claude_desktop_config.json",
                    "/Users/ana/Library/Application Support/Claude/claude_desktop_config.json",
                    "C:/Users/ana/AppData/Roaming/Claude/claude_desktop_config.json",
                ],
            ),
            (
                HostKind::ClaudeCode,
                [
                    "/home/ana/.claude.json",
                    "/Users/ana/.claude.json",
                    "C:/Users/ana/.claude.json",
                ],
            ),
            (
                HostKind::Cursor,
                [
                    "/home/ana/.cursor/mcp.json",
                    "/Users/ana/.cursor/mcp.json",
                    "C:/Users/ana/.cursor/mcp.json",
                ],
            ),
            (
                HostKind::VsCode,
                [
                    "/home/ana/.config/Code/User/mcp.json",
                    "/Users/ana/Library/Application Support/Code/User/mcp.json",
                    "C:/Users/ana/AppData/Roaming/Code/User/mcp.json",
                ],
            ),
            (
                HostKind::Windsurf,
                [
                    "/home/ana/.codeium/windsurf/mcp_config.json",
                    "/Users/ana/.codeium/windsurf/mcp_config.json",
                    "C:/Users/ana/.codeium/windsurf/mcp_config.json",
                ],
            ),
            (
                HostKind::Codex,
                [
                    "/home/ana/.codex/config.toml",
                    "/Users/ana/.codex/config.toml",
                    "C:/Users/ana/.codex/config.toml",
                ],
            ),
            (
                HostKind::Gemini,
                [
                    "/home/ana/.gemini/settings.json",
                    "/Users/ana/.gemini/settings.json",
                    "C:/Users/ana/.gemini/settings.json",
                ],
            ),
            (
                HostKind::Qwen,
                [
                    "/home/ana/.qwen/settings.json",
                    "/Users/ana/.qwen/settings.json",
                    "C:/Users/ana/.qwen/settings.json",
                ],
            ),
            (
                HostKind::Opencode,
                [
                    "/home/ana/.config/opencode/opencode.json",
                    "/Users/ana/.config/opencode/opencode.json",
                    "C:/Users/ana/.config/opencode/opencode.json",
                ],
            ),
            (
                HostKind::Zed,
                [
                    "/home/ana/.config/zed/settings.json",
                    "/Users/ana/.config/zed/settings.json",
                    "C:/Users/ana/AppData/Roaming/Zed/settings.json",
                ],
            ),
            (
                HostKind::LmStudio,
                [
                    "/home/ana/.lmstudio/mcp.json",
                    "/Users/ana/.lmstudio/mcp.json",
                    "C:/Users/ana/.lmstudio/mcp.json",
                ],
            ),
            (
                HostKind::Kiro,
                [
                    "/home/ana/.kiro/settings/mcp.json",
                    "/Users/ana/.kiro/settings/mcp.json",
                    "C:/Users/ana/.kiro/settings/mcp.json",
                ],
            ),
            (
                HostKind::Cline,
                [
                    "/home/ana/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
                    "/Users/ana/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
                    "C:/Users/ana/AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
                ],
            ),
            (
                HostKind::Continue,
                [
                    "/home/ana/.continue/config.yaml",
                    "/Users/ana/.continue/config.yaml",
                    "C:/Users/ana/.continue/config.yaml",
                ],
            ),
            (
                HostKind::Goose,
                [
                    "/home/ana/.config/goose/config.yaml",
                    "/Users/ana/.config/goose/config.yaml",
                    "C:/Users/ana/AppData/Roaming/Block/goose/config/config.yaml",
                ],
            ),
        ];
        assert_eq!(expected.map(|(kind, _)| kind), HostKind::ALL);
        for (kind, [linux, mac, windows]) in expected {
            assert_eq!(path_of(kind, Platform::Linux), linux, "{kind} on Linux");
            assert_eq!(path_of(kind, Platform::MacOs), mac, "{kind} on macOS");
            assert_eq!(
                path_of(kind, Platform::Windows),
                windows,
                "{kind} on Windows"
            );
        }
    }

    #[test]
    fn codex_home_moves_codex_file_and_folder() {
        let mut dirs = dirs(Platform::Linux);
        dirs.codex_home = Some("/srv/codex".into());
        assert_eq!(
            HostKind::Codex.user_path(&dirs),
            PathBuf::from("/srv/codex/config.toml")
        );
        assert_eq!(HostKind::Codex.folder(&dirs), PathBuf::from("/srv/codex"));
    }

    #[test]
    fn ids_round_trip_through_text_and_json() {
        for kind in HostKind::ALL {
            assert_eq!(kind.as_str().parse::<HostKind>(), Ok(kind));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{kind}\""));
            assert_eq!(serde_json::from_str::<HostKind>(&json).unwrap(), kind);
        }
        let error = "claude".parse::<HostKind>().unwrap_err().to_string();
        assert!(
            error.contains("claude-code") && error.contains("goose"),
            "{error}"
        );
    }

    #[test]
    fn project_files_are_beside_the_project() {
        let project = Path::new("/work/app");
        assert_eq!(
            HostKind::ClaudeCode.project_path(project),
            Some(PathBuf::from("/work/app/.mcp.json"))
        );
        assert_eq!(
            HostKind::VsCode.paths_in_folder(project),
            [
                PathBuf::from("/work/app/mcp.json"),
                PathBuf::from("/work/app/.vscode/mcp.json")
            ]
        );
        assert_eq!(HostKind::Goose.project_path(project), None);
    }

    #[test]
    fn a_program_counts_only_when_it_is_executable_on_the_path() {
        let bin = tempfile::tempdir().unwrap();
        let mut dirs = dirs(Platform::Linux);
        dirs.path = vec![bin.path().to_path_buf()];
        assert!(!dirs.on_path("codex"));
        let program = bin.path().join("codex");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert!(
                !dirs.on_path("codex"),
                "a file that cannot run is no program"
            );
            std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        assert!(dirs.on_path("codex"));
    }
}
