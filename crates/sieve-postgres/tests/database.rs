//! The database against a real PostgreSQL server: the schema made once
//! by replicas that start together, queries from inside and outside a
//! tokio runtime, LISTEN/NOTIFY, and a server that goes away and comes
//! back.

use sieve_postgres::testing::TestServer;
use sieve_postgres::{Database, DbError, Notice};
use std::time::Duration;

fn count_documents(db: &Database) -> i64 {
    let error = db.error("counting");
    db.run(move |client| async move {
        let row = client
            .query_one("SELECT count(*) FROM sieve_documents", &[])
            .await
            .map_err(&error)?;
        Ok::<_, DbError>(row.get(0))
    })
    .unwrap()
}

#[test]
fn replicas_starting_together_make_the_schema_once() {
    let server = TestServer::start();
    let url = server.database("together");
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || Database::connect(&url).expect("connects"))
        })
        .collect();
    let databases: Vec<Database> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let db = &databases[0];
    let error = db.error("reading the schema");
    let versions: Vec<i32> = db
        .run(move |client| async move {
            let rows = client
                .query("SELECT version FROM sieve_schema ORDER BY version", &[])
                .await
                .map_err(&error)?;
            Ok::<_, DbError>(rows.iter().map(|row| row.get(0)).collect())
        })
        .unwrap();
    let known: Vec<i32> = sieve_postgres::MIGRATIONS.iter().map(|m| m.0).collect();
    assert_eq!(versions, known, "each migration once");
    assert_eq!(count_documents(db), 0);
}

#[test]
fn queries_run_from_inside_a_tokio_runtime_too() {
    let server = TestServer::start();
    let db = Database::connect(&server.url()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let inside = runtime.block_on(async { count_documents(&db) });
    assert_eq!(inside, 0, "a blocking call inside a runtime does not panic");
}

#[test]
fn a_listener_hears_changes_and_the_server_coming_back() {
    let server = TestServer::start();
    let db = Database::connect(&server.url()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut notices = db.listen("sieve_documents");
        // The listener connects on its own; write until it hears.
        let heard = tokio::time::timeout(Duration::from_secs(20), async {
            let mut n = 0;
            loop {
                n += 1;
                let error = db.error("writing");
                let key = format!("profiles/p{n}.json");
                let written = key.clone();
                db.run(move |client| async move {
                    client
                        .execute(
                            "INSERT INTO sieve_documents (key, body) VALUES ($1, '{}')",
                            &[&written],
                        )
                        .await
                        .map_err(&error)
                })
                .unwrap();
                if let Ok(Some(notice)) =
                    tokio::time::timeout(Duration::from_millis(300), notices.recv()).await
                {
                    break notice;
                }
            }
        })
        .await
        .expect("a change is heard within 20 s");
        assert!(matches!(heard, Notice::Changed(key) if key.starts_with("profiles/")));

        server.stop();
        let lost = tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                if let Some(Notice::Lost(why)) = notices.recv().await {
                    break why;
                }
            }
        })
        .await
        .expect("the loss is reported");
        assert!(!lost.is_empty());
        let error = db.run(|client| async move {
            client
                .query_one("SELECT 1", &[])
                .await
                .map(drop)
                .map_err(|e| DbError::Unreachable {
                    url: String::new(),
                    cause: e.to_string(),
                })
        });
        assert!(error.is_err(), "no query while the server is down");

        server.start_again();
        let back = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                if let Some(Notice::Back) = notices.recv().await {
                    break;
                }
            }
        })
        .await;
        assert!(back.is_ok(), "the listener is back within 30 s");
        assert!(count_documents(&db) >= 1, "queries work again, data kept");
    });
}

#[test]
fn documents_changed_by_many_writers_at_once_lose_nothing() {
    let server = TestServer::start();
    let url = server.database("writers");
    let writers: Vec<_> = (0..8)
        .map(|writer| {
            let db = Database::connect(&url).unwrap();
            std::thread::spawn(move || {
                for n in 0..25 {
                    db.update_document::<DbError>("counter", &mut |text| {
                        let mut lines: Vec<String> =
                            text.unwrap_or("").lines().map(String::from).collect();
                        lines.push(format!("{writer}-{n}"));
                        Ok(Some(lines.join("\n")))
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let db = Database::connect(&url).unwrap();
    let text = db.read_document("counter").unwrap().unwrap();
    assert_eq!(
        text.lines().count(),
        200,
        "every one of 8 × 25 changes is there"
    );
}

#[test]
fn a_failed_change_writes_nothing_and_documents_move_and_go() {
    let server = TestServer::start();
    let db = Database::connect(&server.url()).unwrap();
    assert!(db.create_document("profiles/a.json", "{}").unwrap());
    assert!(
        !db.create_document("profiles/a.json", "{\"x\": 1}").unwrap(),
        "never replaced"
    );
    let refused: Result<(), DbError> = db.update_document("profiles/a.json", &mut |_| {
        Err(DbError::BadUrl {
            url: "u".into(),
            reason: "the change says no".into(),
        })
    });
    assert!(refused.is_err());
    assert_eq!(
        db.read_document("profiles/a.json").unwrap().as_deref(),
        Some("{}")
    );
    db.update_document::<DbError>("profiles/a.json", &mut |_| Ok(None))
        .unwrap();
    assert_eq!(
        db.read_document("profiles/a.json").unwrap().as_deref(),
        Some("{}")
    );

    assert!(db.create_document("profiles/b.json", "{}").unwrap());
    assert_eq!(
        db.rename_document("profiles/a.json", "profiles/b.json")
            .unwrap(),
        sieve_postgres::RenameOutcome::Taken
    );
    assert_eq!(
        db.rename_document("profiles/a.json", "profiles/c.json")
            .unwrap(),
        sieve_postgres::RenameOutcome::Renamed
    );
    assert_eq!(
        db.rename_document("profiles/a.json", "profiles/d.json")
            .unwrap(),
        sieve_postgres::RenameOutcome::Missing
    );
    assert!(db.remove_document("profiles/c.json").unwrap());
    assert!(!db.remove_document("profiles/c.json").unwrap());
    assert_eq!(
        db.document_keys("profiles/").unwrap(),
        ["profiles/b.json", "profiles/c.json.bak"]
    );
}
