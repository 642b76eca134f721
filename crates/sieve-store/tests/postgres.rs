//! The store on a team's PostgreSQL database: the same documents, rules
//! and errors as the files, changes from two replicas at once all kept,
//! every change heard by the other replica.

use sieve_core::Profile;
use sieve_postgres::testing::TestServer;
use sieve_store::home::Home;
use sieve_store::state::Doc;
use sieve_store::store::{Store, StoreError};
use sieve_store::watch::FileChange;
use std::time::Duration;

fn replica(url: &str) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store =
        Store::open(Home::at(dir.path()), Some(url)).expect("the store opens on the database");
    (dir, store)
}

#[test]
fn profiles_and_config_live_in_the_database_under_the_files_rules() {
    let server = TestServer::start();
    let url = server.database("rules");
    let (dir, store) = replica(&url);
    assert_eq!(
        store.profile_names().unwrap(),
        ["default"],
        "default made on first use"
    );
    store.new_profile("work", None).unwrap();
    assert!(matches!(
        store.new_profile("work", None),
        Err(StoreError::ProfileExists { .. })
    ));
    store
        .update_profile("work", |p: &mut Profile| {
            p.description = "Everyday".into();
            Ok::<_, StoreError>(())
        })
        .unwrap();
    store.rename_profile("work", "daily").unwrap();
    assert_eq!(store.profile_names().unwrap(), ["daily", "default"]);
    assert_eq!(
        store
            .load_profile("daily", None)
            .unwrap()
            .profile
            .description,
        "Everyday"
    );
    store.set_active_profile("daily").unwrap();
    assert!(matches!(
        store.delete_profile("daily"),
        Err(StoreError::ActiveProfile { .. })
    ));
    store.set_active_profile("default").unwrap();
    store.delete_profile("daily").unwrap();
    assert_eq!(store.profile_names().unwrap(), ["default"]);
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing of it is written on this machine"
    );

    // A document that does not parse is refused, never overwritten, and the
    // error names where it is.
    let db = store.backend().database().expect("a database").clone();
    db.update_document::<sieve_postgres::DbError>("profiles/broken.json", &mut |_| {
        Ok(Some("{\"tools\": ".into()))
    })
    .unwrap();
    let refused = store
        .update_profile("broken", |p: &mut Profile| {
            p.description = "x".into();
            Ok::<_, StoreError>(())
        })
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("postgres://sieve@127.0.0.1") && refused.contains("profiles/broken.json"),
        "{refused}"
    );
    assert_eq!(
        db.read_document("profiles/broken.json").unwrap().as_deref(),
        Some("{\"tools\": ")
    );

    // One token for every replica.
    let (_other_dir, other) = replica(&url);
    assert_eq!(store.http_token().unwrap(), other.http_token().unwrap());
}

#[test]
fn two_replicas_editing_one_profile_lose_no_edit() {
    let server = TestServer::start();
    let url = server.database("edits");
    let (_dir, first) = replica(&url);
    first.new_profile("shared", None).unwrap();
    let writers: Vec<_> = (0..8)
        .map(|writer| {
            let url = url.clone();
            std::thread::spawn(move || {
                let (_dir, store) = replica(&url);
                for n in 0..10 {
                    store
                        .update_profile("shared", |p: &mut Profile| {
                            p.tools.deny.push(format!("w{writer}_{n}_*"));
                            Ok::<_, StoreError>(())
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let denied = first
        .load_profile("shared", None)
        .unwrap()
        .profile
        .tools
        .deny;
    assert_eq!(denied.len(), 80, "8 replicas × 10 edits, none lost");
}

#[test]
fn a_change_through_one_replica_is_heard_by_the_other() {
    let server = TestServer::start();
    let url = server.database("heard");
    let (_a_dir, a) = replica(&url);
    let (_b_dir, b) = replica(&url);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let (_watching, mut changes) = b.backend().watch().unwrap();
        let heard = tokio::time::timeout(Duration::from_secs(20), async {
            let mut n = 0;
            loop {
                n += 1;
                a.save_profile(&format!("p{n}"), &Profile::default())
                    .unwrap();
                if let Ok(Some(change)) =
                    tokio::time::timeout(Duration::from_millis(500), changes.recv()).await
                {
                    break change;
                }
            }
        })
        .await
        .expect("B hears A's change");
        assert!(matches!(heard, FileChange::Profile(name) if name.starts_with('p')));
        a.update_config(|config| {
            config.settings.call_timeout_seconds = 7;
            Ok::<_, StoreError>(())
        })
        .unwrap();
        let config = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                if let Some(FileChange::Config) = changes.recv().await {
                    break;
                }
            }
        })
        .await;
        assert!(
            config.is_ok(),
            "B hears config.json change within a second or so"
        );
        assert_eq!(b.load_config().unwrap().settings.call_timeout_seconds, 7);

        // A write of the task ledger, and of the audit beside it (any
        // statement on their tables), is heard as the ledger changing.
        let db = a.backend().database().unwrap().clone();
        for statement in [
            "DELETE FROM sieve_tasks WHERE id = 'none'",
            "DELETE FROM sieve_audit WHERE id = -1",
        ] {
            let error = db.error("writing the ledger");
            db.run(
                move |client| async move { client.execute(statement, &[]).await.map_err(&error) },
            )
            .unwrap();
            let heard = tokio::time::timeout(Duration::from_secs(5), async {
                loop {
                    if let Some(FileChange::Tasks) = changes.recv().await {
                        break;
                    }
                }
            })
            .await;
            assert!(heard.is_ok(), "B hears {statement:?}");
        }
    });
    assert_eq!(
        a.location(&Doc::Config).display().to_string(),
        format!("{}/config.json", sieve_postgres::redact(&url))
    );
}

#[test]
fn a_state_that_is_not_postgres_is_refused_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let error = Store::open(Home::at(dir.path()), Some("mysql://x@y/z")).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("postgres://USER:PASSWORD@HOST:PORT/DATABASE"),
        "{error}"
    );
}

#[test]
fn a_teams_secrets_are_sealed_in_its_database_and_open_only_with_its_key() {
    use sieve_store::secrets::{SecretError, Secrets};
    let server = TestServer::start();
    let url = server.database("secrets");
    let db = sieve_postgres::Database::connect(&url).expect("the database takes the schema");
    let key = "q3mX2f0Z8yQ1N0m2x1Q3n9s6t4r2p0o8i6u4y2t0r8E=";
    let secrets = Secrets::team(&db, key).expect("a 32-byte key");
    assert!(
        secrets.location().contains("team's database"),
        "{}",
        secrets.location()
    );
    assert_eq!(secrets.get("github/env/GITHUB_TOKEN").unwrap(), None);
    secrets
        .set("github/env/GITHUB_TOKEN", "ghp_not-in-the-clear")
        .unwrap();

    // Another process with the same key reads it; the row holds no value.
    let other = Secrets::team(&db, key).unwrap();
    assert_eq!(
        other.get("github/env/GITHUB_TOKEN").unwrap().as_deref(),
        Some("ghp_not-in-the-clear")
    );
    let sealed = db
        .read_sealed("github/env/GITHUB_TOKEN")
        .unwrap()
        .expect("a row");
    assert!(
        !sealed.windows(8).any(|w| w == b"ghp_not-"),
        "the database holds no value in the clear"
    );
    // A fresh nonce each time: the same value seals differently.
    secrets
        .set("github/env/GITHUB_TOKEN", "ghp_not-in-the-clear")
        .unwrap();
    assert_ne!(
        db.read_sealed("github/env/GITHUB_TOKEN").unwrap().unwrap(),
        sealed
    );

    // Another key, or the sealed bytes under another name, do not open.
    let stranger = Secrets::team(&db, "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=").unwrap();
    let err = stranger.get("github/env/GITHUB_TOKEN").unwrap_err();
    assert!(matches!(err, SecretError::Sealed { .. }), "{err}");
    assert!(err.to_string().contains("MCP_SIEVE_TEAM_KEY"), "{err}");
    db.write_sealed("moved", sealed, 0).unwrap();
    assert!(matches!(
        secrets.get("moved"),
        Err(SecretError::Sealed { .. })
    ));

    // A key that is no key is refused in words.
    for bad in ["not base64!", "c2hvcnQ="] {
        let err = Secrets::team(&db, bad).expect_err("refused");
        assert!(
            matches!(err, SecretError::TeamKey { .. }) && err.to_string().contains("openssl rand"),
            "{err}"
        );
    }
    assert!(secrets.delete("github/env/GITHUB_TOKEN").unwrap());
    assert!(!secrets.delete("github/env/GITHUB_TOKEN").unwrap());
    assert_eq!(other.get("github/env/GITHUB_TOKEN").unwrap(), None);
}
