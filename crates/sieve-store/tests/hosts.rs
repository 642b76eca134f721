//! Every host's real file, as the host writes it (fixtures/hosts/<id>/,
//! with comments where the format has them, other settings and other
//! servers): detected, imported, routed through MCP Sieve over stdio and
//! HTTP, routed a second time (nothing changes), unrouted (its servers
//! back, as they were), and left untouched when it does not parse.
//!
//! Each fixture folder has the host's file under its own name and an
//! `expect.json`: the servers routing moves into `config.json`, the ones
//! it leaves in the file (MCP Sieve cannot run them for the host), and
//! text that must survive every rewrite (comments, other settings).

use serde_json::{Map, Value};
use sieve_store::home::Home;
use sieve_store::hosts::{
    self, HostDirs, HostKind, HostState, Platform, Via, detect, import::parse_host_config,
};
use sieve_store::import::server_key;
use sieve_store::store::Store;
use std::path::{Path, PathBuf};

const SIEVE: &str = "/opt/mcp-sieve/bin/mcp-sieve";

struct Expect {
    moved: Vec<String>,
    left: Vec<String>,
    kept: Vec<String>,
}

fn fixture_dir(host: HostKind) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hosts")
        .join(host.as_str())
}

fn expect(host: HostKind) -> Expect {
    let path = fixture_dir(host).join("expect.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{host} needs {}: {e}", path.display()));
    let value: Value = serde_json::from_str(&text).expect("expect.json parses");
    let list = |key: &str| -> Vec<String> {
        value[key]
            .as_array()
            .unwrap_or_else(|| panic!("{host}: expect.json has no {key:?} list"))
            .iter()
            .map(|v| v.as_str().expect("names are strings").to_string())
            .collect()
    };
    Expect {
        moved: list("moved"),
        left: list("left"),
        kept: list("kept"),
    }
}

/// A machine with only `host`'s file, at its place under a temporary home.
struct Machine {
    _dir: tempfile::TempDir,
    dirs: HostDirs,
    store: Store,
    file: PathBuf,
    original: String,
}

fn machine(host: HostKind) -> Machine {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let home = dir.path().join("home");
    let dirs = HostDirs {
        platform: Platform::Linux,
        home_dir: home.clone(),
        config_dir: home.join(".config"),
        cwd: None,
        codex_home: None,
        path: Vec::new(),
    };
    let file = host.user_path(&dirs);
    let name = file.file_name().expect("a file name");
    let original = std::fs::read_to_string(fixture_dir(host).join(name))
        .unwrap_or_else(|e| panic!("{host} needs its file {name:?} in its fixture folder: {e}"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, &original).unwrap();
    let store = Store::new(Home::at(&dir.path().join("sieve")));
    Machine {
        _dir: dir,
        dirs,
        store,
        file,
        original,
    }
}

fn stdio(store: &Store) -> Via {
    Via::Stdio {
        command: SIEVE.into(),
        home: store.home().explicit().map(Path::to_path_buf),
    }
}

fn http() -> Via {
    Via::Http {
        base: "http://127.0.0.1:8765/mcp".into(),
        token: "t0ken".into(),
        fallback: Some(Box::new(Via::Stdio {
            command: SIEVE.into(),
            home: None,
        })),
    }
}

/// The servers of `host`'s file at `path`, by name, as the file has them.
fn servers(host: HostKind, path: &Path) -> Map<String, Value> {
    hosts::HostFile::open(host, path)
        .and_then(|file| file.servers())
        .expect("the host's file reads")
        .into_iter()
        .collect()
}

fn names(map: &Map<String, Value>) -> Vec<String> {
    let mut names: Vec<String> = map.keys().cloned().collect();
    names.sort();
    names
}

fn sorted(mut list: Vec<String>) -> Vec<String> {
    list.sort();
    list
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).expect("the file reads")
}

#[test]
fn every_host_has_a_fixture_of_its_real_file() {
    for host in HostKind::ALL {
        let file = machine(host);
        assert!(
            !file.original.trim().is_empty(),
            "{host}'s fixture is empty"
        );
    }
}

#[test]
fn each_host_is_detected_and_its_servers_import() {
    for host in HostKind::ALL {
        let machine = machine(host);
        let expect = expect(host);
        let status = detect(host, &machine.dirs);
        assert_eq!(status.state, HostState::Installed, "{host}: {status:?}");
        assert_eq!(
            sorted(status.servers.clone()),
            sorted([expect.moved.clone(), expect.left.clone()].concat()),
            "{host}: the servers its file lists"
        );
        let entries = parse_host_config(host, "fixture", &machine.original).expect("it parses");
        for entry in &entries {
            let should_import = expect.moved.contains(&entry.name);
            assert_eq!(
                entry.server.is_ok(),
                should_import,
                "{host}: {} {:?}",
                entry.name,
                entry.server
            );
        }
    }
}

#[test]
fn routing_moves_the_servers_behind_sieve_and_keeps_everything_else() {
    for host in HostKind::ALL {
        let m = machine(host);
        let expect = expect(host);
        let report = hosts::route(&m.store, host, &m.file, None, &stdio(&m.store))
            .unwrap_or_else(|e| panic!("{host} routes: {e}"));
        assert!(report.write.changed, "{host}: the file was rewritten");
        assert_eq!(report.profile, host.as_str(), "{host}: its own profile");
        assert!(report.profile_created, "{host}: the profile was made");
        assert_eq!(
            sorted(report.moved.clone()),
            sorted(expect.moved.clone()),
            "{host}"
        );
        let left: Vec<String> = report.left.iter().map(|l| l.name.clone()).collect();
        assert_eq!(sorted(left), sorted(expect.left.clone()), "{host}");
        for left in &report.left {
            assert!(
                !left.reason.is_empty(),
                "{host}: {} is left with a reason",
                left.name
            );
        }

        let text = read(&m.file);
        let now = servers(host, &m.file);
        assert_eq!(
            names(&now),
            sorted([expect.left.clone(), vec!["sieve".into()]].concat()),
            "{host}: only the sieve entry and what it cannot run:\n{text}"
        );
        assert_eq!(
            hosts::sieve_profile(host, &now["sieve"]).as_deref(),
            Some(host.as_str()),
            "{host}: the entry serves its profile:\n{text}"
        );
        for kept in &expect.kept {
            assert!(
                text.contains(kept),
                "{host}: {kept:?} survives routing:\n{text}"
            );
        }
        assert_eq!(
            read(&PathBuf::from(format!("{}.bak", m.file.display()))),
            m.original,
            "{host}: the .bak is the file as it was"
        );

        // config.json has each moved server, and the host's profile
        // names exactly them.
        let config = m.store.load_config().unwrap();
        let profile = m.store.load_profile(host.as_str(), Some(&config)).unwrap();
        let mut listed = profile
            .profile
            .servers
            .clone()
            .expect("the profile lists servers");
        listed.sort();
        // Under their keys: a name that is no key ("SQLite") got a short
        // one, and the report says so.
        let keys: Vec<String> = expect.moved.iter().map(|n| server_key(n)).collect();
        assert_eq!(listed, sorted(keys), "{host}: the profile");
        for name in expect.moved.iter().filter(|n| server_key(n) != **n) {
            let renamed = report
                .import
                .renamed
                .iter()
                .find(|r| r.from == *name)
                .unwrap_or_else(|| panic!("{host}: {name} is said to be renamed: {report:?}"));
            assert_eq!(
                renamed.message,
                format!("imported {name:?} as {}", server_key(name)),
                "{host}"
            );
        }
        for name in &listed {
            assert!(
                config.mcp_servers.contains_key(name),
                "{host}: {name} in config.json"
            );
        }
    }
}

#[test]
fn a_second_route_changes_nothing() {
    for host in HostKind::ALL {
        let m = machine(host);
        hosts::route(&m.store, host, &m.file, None, &stdio(&m.store)).unwrap();
        let files = [
            m.file.clone(),
            m.store.home().config_file(),
            m.store.home().hosts_file(),
            m.store.home().profile_file(host.as_str()),
        ];
        let before: Vec<String> = files.iter().map(|f| read(f)).collect();
        let again = hosts::route(&m.store, host, &m.file, None, &stdio(&m.store)).unwrap();
        assert!(!again.write.changed, "{host}: {again:?}");
        assert!(again.moved.is_empty(), "{host}: {again:?}");
        let after: Vec<String> = files.iter().map(|f| read(f)).collect();
        assert_eq!(before, after, "{host}: nothing changes the second time");
    }
}

#[test]
fn unrouting_gives_each_host_its_servers_back_as_they_were() {
    for host in HostKind::ALL {
        let m = machine(host);
        let expect = expect(host);
        let had = servers(host, &m.file);
        hosts::route(&m.store, host, &m.file, None, &stdio(&m.store)).unwrap();
        // A stale .bak must not be what unrouting relies on.
        std::fs::write(format!("{}.bak", m.file.display()), "stale").unwrap();
        let report = hosts::unroute(&m.store, host, &m.file).unwrap();
        assert!(report.recorded, "{host}");
        assert_eq!(
            sorted(report.restored.clone()),
            sorted(expect.moved.clone()),
            "{host}"
        );
        let back = servers(host, &m.file);
        assert_eq!(back, had.clone(), "{host}: every server as it was");
        let text = read(&m.file);
        for kept in &expect.kept {
            assert!(text.contains(kept), "{host}: {kept:?} survives:\n{text}");
        }
        assert_eq!(detect(host, &m.dirs).state, HostState::Installed, "{host}");
        let twice = hosts::unroute(&m.store, host, &m.file).unwrap();
        assert!(!twice.write.changed && !twice.recorded, "{host}: {twice:?}");
        assert_eq!(
            servers(host, &m.file),
            had,
            "{host}: a second unroute changes nothing"
        );
    }
}

#[test]
fn over_http_each_host_gets_its_own_url_with_the_token() {
    for host in HostKind::ALL {
        let m = machine(host);
        hosts::route(&m.store, host, &m.file, None, &http()).unwrap();
        let status = detect(host, &m.dirs);
        assert_eq!(status.state, HostState::Routed, "{host}");
        assert_eq!(status.profile.as_deref(), Some(host.as_str()), "{host}");
        let entry = servers(host, &m.file)["sieve"].clone();
        let text = entry.to_string();
        if host.takes_http() {
            assert_eq!(status.transport, Some("http"), "{host}");
            let url = format!("http://127.0.0.1:8765/mcp/p/{host}");
            assert!(text.contains(&url), "{host}: {text}");
            assert!(text.contains("Bearer t0ken"), "{host}: {text}");
        } else {
            assert_eq!(status.transport, Some("stdio"), "{host} takes stdio only");
            assert!(text.contains(SIEVE), "{host}: {text}");
        }
    }
}

#[test]
fn a_file_that_does_not_parse_is_left_as_it_is() {
    for host in HostKind::ALL {
        let m = machine(host);
        let broken = match host.format() {
            hosts::document::Format::Json => "{\"mcpServers\": {\"a\": }\n",
            hosts::document::Format::Toml => "[mcp_servers.a\ncommand = \"x\"\n",
            hosts::document::Format::Yaml => "extensions:\n  a: [1, 2\n",
        };
        std::fs::write(&m.file, broken).unwrap();
        let error = hosts::route(&m.store, host, &m.file, None, &stdio(&m.store))
            .expect_err("a broken file is refused")
            .to_string();
        assert!(
            error.contains(&m.file.display().to_string()) && error.contains("left as it is"),
            "{host}: {error}"
        );
        assert_eq!(read(&m.file), broken, "{host}: untouched");
        assert!(
            !m.store.home().hosts_file().exists(),
            "{host}: nothing recorded"
        );
        let status = detect(host, &m.dirs);
        assert!(status.problem.is_some(), "{host}: {status:?}");
    }
}
