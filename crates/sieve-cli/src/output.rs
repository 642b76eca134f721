//! Printing a command's answer as JSON (`--json`): the stable JSON
//! documented in docs/cli.md; and the lines several commands print alike.

use anyhow::Result;
use serde::Serialize;
use std::io::Write;

pub(crate) fn print_json(out: &mut dyn Write, value: &impl Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}

/// One line per value kept out of `config.json` when a server was added.
pub(crate) fn print_kept(
    out: &mut dyn Write,
    kept: &[sieve_api::secrets::SecretKept],
) -> Result<()> {
    for kept in kept {
        writeln!(
            out,
            "  {} {:?} is kept in {}; config.json says ${{secret:{}}}",
            kept.section, kept.key, kept.location, kept.secret
        )?;
    }
    Ok(())
}
