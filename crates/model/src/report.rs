//! What a component reports about a run: statistics declared once, beside the component (a
//! dynamic policy's in its registry entry, the cost gate's and the engine's sampler's in their
//! modules), and their values as data ([`Report`]), which results carry as a record of their
//! own (`policy: {...}`) and listings and docs show from the declarations.
//!
//! A component adds a statistic by declaring it and reporting it; nothing between it and the
//! user names the statistic (the result serialises the record, Python renders any record).

use serde::ser::{Serialize, SerializeMap, Serializer};

/// One statistic a component reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatDecl {
    /// Its key in the component's record.
    pub name: &'static str,
    /// Its unit, in words (`pages`, `moves`, `share`, `events`).
    pub unit: &'static str,
    pub doc: &'static str,
}

/// A statistic's value.
#[derive(Clone, Debug, PartialEq)]
pub enum StatValue {
    Count(u64),
    /// A number, or none where it is undefined (serialised as `null`).
    Number(Option<f64>),
    /// One number per thread, node or the like; none where undefined.
    Numbers(Option<Vec<f64>>),
}

impl Serialize for StatValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            StatValue::Count(v) => s.serialize_u64(*v),
            StatValue::Number(v) => v.serialize(s),
            StatValue::Numbers(v) => v.serialize(s),
        }
    }
}

/// A component's statistics for one run, in the order it reported them (serialised as a map).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report(Vec<(&'static str, StatValue)>);

impl Report {
    pub fn count(&mut self, name: &'static str, v: u64) {
        self.0.push((name, StatValue::Count(v)));
    }

    pub fn number(&mut self, name: &'static str, v: Option<f64>) {
        self.0.push((name, StatValue::Number(v)));
    }

    pub fn numbers(&mut self, name: &'static str, v: Option<Vec<f64>>) {
        self.0.push((name, StatValue::Numbers(v)));
    }

    /// The value reported as `name`, if any.
    pub fn get(&self, name: &str) -> Option<&StatValue> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// A count reported as `name` (0 if none was).
    pub fn count_of(&self, name: &str) -> u64 {
        match self.get(name) {
            Some(StatValue::Count(v)) => *v,
            _ => 0,
        }
    }

    /// The names reported, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|(n, _)| *n)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Report {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_serialises_as_a_map_in_its_order_with_null_for_undefined() {
        let mut r = Report::default();
        r.count("frozen_pages", 3);
        r.number("share", None);
        r.numbers("per_thread", Some(vec![0.5, 1.0]));
        assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"frozen_pages":3,"share":null,"per_thread":[0.5,1.0]}"#);
        assert_eq!(r.count_of("frozen_pages"), 3);
        assert_eq!(r.count_of("absent"), 0);
        assert_eq!(r.names().collect::<Vec<_>>(), ["frozen_pages", "share", "per_thread"]);
    }
}
