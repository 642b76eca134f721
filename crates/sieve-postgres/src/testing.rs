//! A real PostgreSQL server for tests: `initdb` on a temporary folder,
//! `pg_ctl` on a free port of 127.0.0.1, stopped when dropped. Debian's
//! `postgresql` package provides the programs (`scripts/test-deps.sh`
//! installs it); as root they run as the `postgres` user, since `initdb`
//! refuses root. A missing program fails the test with what to install,
//! never skips it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A PostgreSQL server of a test's own.
pub struct TestServer {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
}

/// The folder of `initdb` and `pg_ctl`: `$MCP_SIEVE_PG_BIN`, else the
/// newest of Debian's `/usr/lib/postgresql/*/bin`.
fn find_bin() -> PathBuf {
    if let Some(dir) = std::env::var_os("MCP_SIEVE_PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .filter_map(|entry| Some(entry.ok()?.path().join("bin")))
                .filter(|bin| bin.join("initdb").is_file())
                .collect()
        })
        .unwrap_or_default();
    versions.sort_by_key(|bin| {
        bin.parent()
            .and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok())
            .unwrap_or(0)
    });
    versions.pop().unwrap_or_else(|| {
        panic!(
            "PostgreSQL's initdb is not installed: run scripts/test-deps.sh (apt package postgresql), or set MCP_SIEVE_PG_BIN to the folder of initdb and pg_ctl"
        )
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free port")
}

impl TestServer {
    /// Makes and starts a server; the user `sieve` owns it, with trust
    /// authentication on 127.0.0.1.
    pub fn start() -> TestServer {
        let bin = find_bin();
        let dir = tempfile::Builder::new()
            .prefix("sieve-pg-")
            .tempdir()
            .expect("a temporary folder");
        let as_postgres = is_root();
        if as_postgres {
            let owned = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(dir.path())
                .status()
                .expect("chown runs");
            assert!(
                owned.success(),
                "cannot give {} to postgres",
                dir.path().display()
            );
        }
        let server = TestServer {
            dir,
            bin,
            port: free_port(),
            as_postgres,
        };
        let data = server.data();
        let out = server.run(
            "initdb",
            &[
                "-D",
                &data,
                "-U",
                "sieve",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-sync",
            ],
        );
        assert!(out.status.success(), "initdb failed: {}", text(&out));
        server.start_again();
        server
    }

    fn data(&self) -> String {
        self.dir.path().join("data").display().to_string()
    }

    fn run(&self, program: &str, args: &[&str]) -> Output {
        let program = self.bin.join(program);
        let mut command = if self.as_postgres {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&program);
            command
        } else {
            Command::new(&program)
        };
        command
            .args(args)
            .current_dir(self.dir.path())
            .output()
            .unwrap_or_else(|e| panic!("{} does not run: {e}", program.display()))
    }

    /// Starts the server (again, after [`TestServer::stop`]) and waits
    /// until it takes connections.
    pub fn start_again(&self) {
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off -c max_connections=200",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("log").display().to_string();
        let out = self.run(
            "pg_ctl",
            &[
                "-D",
                &self.data(),
                "-o",
                &options,
                "-l",
                &log,
                "-w",
                "-t",
                "30",
                "start",
            ],
        );
        assert!(
            out.status.success(),
            "pg_ctl start failed: {}\n{}",
            text(&out),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "PostgreSQL did not take connections in 30 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Stops the server at once, as a crash would (`-m immediate`).
    pub fn stop(&self) {
        let out = self.run(
            "pg_ctl",
            &["-D", &self.data(), "-m", "immediate", "-w", "stop"],
        );
        assert!(out.status.success(), "pg_ctl stop failed: {}", text(&out));
    }

    /// The address of database `name` (made by [`TestServer::database`]).
    pub fn url_of(&self, name: &str) -> String {
        format!("postgres://sieve@127.0.0.1:{}/{name}", self.port)
    }

    /// The address of the server's first database, `postgres`.
    pub fn url(&self) -> String {
        self.url_of("postgres")
    }

    /// Makes a database of its own for one test, and gives its address.
    pub fn database(&self, name: &str) -> String {
        let out = self.run(
            "createdb",
            &[
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "sieve",
                name,
            ],
        );
        assert!(
            out.status.success(),
            "createdb {name} failed: {}",
            text(&out)
        );
        self.url_of(name)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        let _ = self.run("pg_ctl", &["-D", &self.data(), "-m", "immediate", "stop"]);
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
