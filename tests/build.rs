//! `mcp-sieve-under-test` is laid out as the `mcp-sieve` it stands for, so
//! the benchmarks measure the code that ships (crates/sieve-cli/link_order.rs).

use std::path::Path;

#[path = "../crates/sieve-cli/link_order.rs"]
mod link_order;

fn main() {
    let order = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/sieve-cli/link-order.txt");
    link_order::lay_out("mcp-sieve-under-test", &order);
}
