//! The release binary's code laid out: see `link_order.rs`.

use std::path::Path;

mod link_order;

fn main() {
    let order = Path::new(env!("CARGO_MANIFEST_DIR")).join("link-order.txt");
    link_order::lay_out("mcp-sieve", &order);
}
