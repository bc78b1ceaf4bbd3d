//! What the Python runtime tools (`numaplace.runtime`) need from the model as data, so they
//! keep no copy of it: the stats-file schema (`_native.stats_schema()`, from
//! [`numaplace_model::stats`]), as JSON text like the rest of `_native` (the placements'
//! capabilities are in `_native.placements()`). [`register`] adds it to the module.

use numaplace_model::stats::{Field, Kind, FILE, VERSION};
use pyo3::prelude::*;
use serde_json::{json, Value};

fn fields_json(fields: &[Field]) -> Value {
    fields
        .iter()
        .map(|f| {
            let mut o = json!({"name": f.name, "kind": f.kind.name(), "nullable": f.nullable, "doc": f.doc});
            if let Kind::List(inner) = f.kind {
                o["fields"] = fields_json(inner);
            }
            o
        })
        .collect()
}

/// The runtime's stats-file schema as JSON: `version`, and `fields`, the file's keys in the
/// order written, each with `name`, `kind` (`text`, `integer`, `number`, `share`, `per-node`,
/// `list`), `nullable` and `doc`; a `list` has the `fields` of its objects.
#[pyfunction]
fn stats_schema() -> String {
    json!({"version": VERSION, "fields": fields_json(FILE)}).to_string()
}

/// Adds this module's functions to `_native`.
///
/// # Errors
/// Only if PyO3 cannot add a function (a bug).
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(stats_schema, m)?)?;
    Ok(())
}
