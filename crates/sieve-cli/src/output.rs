//! Printing a command's answer as JSON (`--json`): the stable JSON
//! documented in docs/cli.md.

use anyhow::Result;
use serde::Serialize;
use std::io::Write;

pub(crate) fn print_json(out: &mut dyn Write, value: &impl Serialize) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)?;
    Ok(())
}
