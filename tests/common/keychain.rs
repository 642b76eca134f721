//! A system keychain of a test's own: a D-Bus session bus with
//! gnome-keyring's Secret Service on it, unlocked with a throwaway
//! password (`scripts/test-deps.sh` installs dbus-daemon and
//! gnome-keyring). Commands given [`Keychain::env`] keep their secrets
//! there; the session ends when the keychain is dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

pub struct Keychain {
    session: Child,
    /// `DBUS_SESSION_BUS_ADDRESS` of the session.
    pub bus: String,
    _desktop_home: tempfile::TempDir,
}

impl Keychain {
    /// Starts the session and waits (at most 20 s) until the Secret
    /// Service's name is on the bus: the daemon forks and registers it a
    /// moment after it starts.
    pub fn start() -> Keychain {
        let desktop_home = tempfile::tempdir().expect("a temporary HOME");
        // The session lasts as long as `cat` reads: until the keychain
        // closes its stdin.
        let script = "printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && \
             for i in $(seq 200); do \
               dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
                 org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null \
                 | grep -q 'boolean true' && break; sleep 0.1; done && \
             echo \"$DBUS_SESSION_BUS_ADDRESS\" && exec cat >/dev/null";
        let mut session = Command::new("dbus-run-session")
            .args(["--", "sh", "-c", script])
            .env("HOME", desktop_home.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("dbus-run-session runs (test-deps installs dbus-daemon and gnome-keyring)");
        let mut bus = String::new();
        BufReader::new(session.stdout.take().expect("stdout is piped"))
            .read_line(&mut bus)
            .expect("the session says its bus address");
        let bus = bus.trim().to_string();
        assert!(
            bus.starts_with("unix:"),
            "no bus address from dbus-run-session: {bus:?}"
        );
        Keychain {
            session,
            bus,
            _desktop_home: desktop_home,
        }
    }

    /// What a command needs to keep its secrets in this keychain.
    pub fn env(&self) -> [(&str, &str); 2] {
        [
            ("DBUS_SESSION_BUS_ADDRESS", self.bus.as_str()),
            ("MCP_SIEVE_SECRETS", "keychain"),
        ]
    }
}

impl Drop for Keychain {
    fn drop(&mut self) {
        // Closing stdin ends `cat`, and with it the session and its daemons.
        drop(self.session.stdin.take());
        let _ = self.session.wait();
    }
}
