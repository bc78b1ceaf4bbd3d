//! One registry type for every plug-in point (placements, dynamic policies, workloads, and the
//! engines and schedulers to come): entries keyed by the name users type, each with a one-line
//! doc, its declared parameters, its capabilities and its constructor.
//!
//! Lookup, the "unknown name" error that lists the known names, and parameter resolution are
//! written here once; a plug-in point only declares its entries.

use crate::error::ModelError;
use crate::spec::{ParamDecl, Resolved, Spec};

/// One registry entry: a plug-in users can name.
///
/// `B` is the constructor's type (a function pointer whose arguments differ per plug-in
/// point); `C` what the plug-in can do, as data a caller asks before acting (`()` for points
/// whose entries all can do the same).
pub struct Info<B: 'static, C: 'static = ()> {
    /// The name users type.
    pub name: &'static str,
    /// One line for listings.
    pub doc: &'static str,
    pub params: &'static [ParamDecl],
    pub caps: C,
    pub build: B,
}

/// Every entry of one plug-in point, in listing order (groups concatenated).
pub struct Registry<B: 'static, C: 'static = ()> {
    /// What users call this kind of plug-in, in messages: `placement`, `dynamic policy`.
    pub kind: &'static str,
    pub groups: &'static [&'static [Info<B, C>]],
}

impl<B, C> Registry<B, C> {
    /// Every entry, in listing order.
    pub fn iter(&self) -> impl Iterator<Item = &'static Info<B, C>> + Clone {
        self.groups.iter().flat_map(|g| g.iter())
    }

    /// Every name, in listing order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + Clone {
        self.iter().map(|i| i.name)
    }

    /// The entry named `name`.
    ///
    /// # Errors
    /// An unknown name, with the known ones listed.
    pub fn get(&self, name: &str) -> Result<&'static Info<B, C>, ModelError> {
        self.iter().find(|i| i.name == name).ok_or_else(|| ModelError::unknown(self.kind, name, self.names()))
    }

    /// Finds `spec`'s entry and checks its parameters (names, types, ranges): everything that
    /// can be checked before a run.
    ///
    /// # Errors
    /// An unknown name (listing the known ones) or a bad parameter.
    pub fn resolve(&self, spec: &Spec) -> Result<(&'static Info<B, C>, Resolved), ModelError> {
        let info = self.get(&spec.name)?;
        Ok((info, spec.resolve(self.kind, info.params)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::ParamKind;

    const A: &[Info<u8>] = &[Info { name: "a", doc: "first", params: &[], caps: (), build: 1 }];
    const B: &[Info<u8>] = &[Info {
        name: "b",
        doc: "second",
        params: &[ParamDecl { name: "n", kind: ParamKind::UINT, default: "3", doc: "a number" }],
        caps: (),
        build: 2,
    }];
    const R: Registry<u8> = Registry { kind: "widget", groups: &[A, B] };

    #[test]
    fn groups_are_listed_in_order() {
        assert_eq!(R.names().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(R.get("b").unwrap().build, 2);
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let e = R.get("c").err().unwrap().to_string();
        assert_eq!(e, "unknown widget 'c' (known: a, b)");
    }

    #[test]
    fn resolve_checks_parameters_under_the_kind() {
        let (_, r) = R.resolve(&Spec::parse("b:n=4").unwrap()).unwrap();
        assert_eq!(r.uint("n"), 4);
        let e = R.resolve(&Spec::parse("b:m=4").unwrap()).err().unwrap().to_string();
        assert!(e.starts_with("widget 'b': unknown parameter 'm'"), "{e}");
    }
}
