//! [`MetricValues`]: typed metric -> value rows, written as JSON/TOML maps keyed by the
//! metric's name.

use ltr_metrics::Metric;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Values of some metrics, one per metric.
///
/// Written as a map sorted by metric name (`{"map": .., "ndcg@1": .., "ndcg@10": ..}`), the
/// layout of every report and baseline file; names are parsed into [`Metric`] only when a
/// file is read. A NaN (a missing number) is written as `null` and read back as NaN.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MetricValues(Vec<(Metric, f64)>);

impl MetricValues {
    /// The value of `metric`, if present.
    pub fn get(&self, metric: Metric) -> Option<f64> {
        self.0.iter().find(|(m, _)| *m == metric).map(|(_, v)| *v)
    }

    /// Sets the value of `metric`.
    pub fn insert(&mut self, metric: Metric, value: f64) {
        match self.0.iter_mut().find(|(m, _)| *m == metric) {
            Some(slot) => slot.1 = value,
            None => self.0.push((metric, value)),
        }
    }

    /// The metrics and values, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (Metric, f64)> + '_ {
        self.0.iter().copied()
    }

    /// Number of metrics.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries sorted by metric name (the file order).
    fn by_name(&self) -> Vec<(String, f64)> {
        let mut named: Vec<(String, f64)> = self.0.iter().map(|(m, v)| (m.to_string(), *v)).collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        named
    }
}

impl FromIterator<(Metric, f64)> for MetricValues {
    fn from_iter<I: IntoIterator<Item = (Metric, f64)>>(iter: I) -> Self {
        let mut values = Self::default();
        for (m, v) in iter {
            values.insert(m, v);
        }
        values
    }
}

impl Serialize for MetricValues {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.by_name())
    }
}

impl<'de> Deserialize<'de> for MetricValues {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = std::collections::BTreeMap::<String, Option<f64>>::deserialize(d)?;
        raw.into_iter()
            .map(|(name, v)| {
                let metric = name.parse::<Metric>().map_err(serde::de::Error::custom)?;
                Ok((metric, v.unwrap_or(f64::NAN)))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn written_sorted_by_name_and_read_back_typed() {
        let v: MetricValues = Metric::REPORT.iter().enumerate().map(|(i, m)| (*m, i as f64)).collect();
        let text = serde_json::to_string(&v).unwrap();
        assert!(text.starts_with(r#"{"map":7.0,"ndcg@1":0.0,"ndcg@10":3.0,"ndcg@3":1.0"#), "{text}");
        let back: MetricValues = serde_json::from_str(&text).unwrap();
        assert_eq!(back.get(Metric::Ndcg(10)), Some(3.0));
        assert_eq!(back.len(), 8);
        let nan: MetricValues = serde_json::from_str(r#"{"map": null}"#).unwrap();
        assert!(nan.get(Metric::Map).unwrap().is_nan());
        let e = serde_json::from_str::<MetricValues>(r#"{"auc": 0.5}"#).unwrap_err().to_string();
        assert!(e.contains("auc"), "{e}");
    }
}
