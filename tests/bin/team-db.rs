//! A team's PostgreSQL database for the app's end-to-end tests
//! (tests/e2e), which have no PostgreSQL client of their own:
//! `team-db CONFIG_FILE` starts a server of its own on a free loopback
//! port (`sieve_postgres::testing`), makes a database whose `config.json`
//! is that file's text, prints the database's address on one line, and
//! stops the server once its standard input closes.

use sieve_postgres::Database;
use sieve_postgres::testing::TestServer;
use std::io::{Read, Write};

fn main() {
    let file = std::env::args()
        .nth(1)
        .expect("usage: team-db CONFIG_FILE (the team's config.json)");
    let config =
        std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file} cannot be read: {e}"));
    let server = TestServer::start();
    let url = server.database("team");
    let db = Database::connect(&url).expect("the database takes the schema");
    db.update_document::<sieve_postgres::DbError>("config.json", &mut |_| Ok(Some(config.clone())))
        .expect("config.json is written");
    let mut out = std::io::stdout();
    writeln!(out, "{url}").expect("the address is printed");
    out.flush().expect("the address is printed");
    // Until the spec is done with it; the server stops when dropped.
    let mut rest = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut rest);
    drop(server);
}
