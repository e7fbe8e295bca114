//! The query-grouped data set and its borrowed per-query views.

use crate::convention::Convention;
use crate::derived::Derived;
use crate::error::{Error, Result};

/// A relevance grade (LETOR: 0..=2, MSLR: 0..=4).
pub type Grade = u8;

/// The largest feature count accepted from a flag or a model file (2^20). Public
/// learning-to-rank data sets use at most a few hundred features (MSLR-WEB 136, Istella 220,
/// Yahoo! LTR 700); the bound keeps every size derived from a width (rows x width x 4 bytes,
/// a model's per-feature buffers) far from overflow, and refuses a corrupt width before
/// anything is allocated for it.
pub const MAX_FEATURES: usize = 1 << 20;

/// A query-grouped learning-to-rank data set.
///
/// Documents of one query are contiguous. Features are dense and row-major: document `i`
/// occupies `features[i * n_features .. (i + 1) * n_features]`. Feature `j` (0-based) is
/// the file's feature `j + 1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    n_features: usize,
    features: Vec<f32>,
    labels: Vec<Grade>,
    /// `query_offsets[q]..query_offsets[q + 1]` are the documents of query `q`.
    query_offsets: Vec<usize>,
    query_ids: Vec<String>,
    doc_ids: Option<Vec<String>>,
    /// The metric convention its numbers are computed under, when the source names one.
    convention: Option<Convention>,
    /// A seed naming this split, when whoever built it gave one (the cross-validation
    /// protocol gives each fold's training split one).
    split_seed: Option<u64>,
    /// Values computed from the contents, shared by every fit on this data set.
    derived: Derived,
}

impl Dataset {
    /// Builds a data set from its parts, checking every invariant.
    ///
    /// `query_offsets` must start at 0, be strictly increasing (no empty query) and end at
    /// the number of documents.
    pub fn from_parts(
        n_features: usize,
        features: Vec<f32>,
        labels: Vec<Grade>,
        query_offsets: Vec<usize>,
        query_ids: Vec<String>,
        doc_ids: Option<Vec<String>>,
    ) -> Result<Self> {
        let n_docs = labels.len();
        let invalid = |reason: String| Err(Error::InvalidDataset { reason });
        if features.len() != n_docs * n_features {
            return invalid(format!(
                "{} feature values for {n_docs} documents x {n_features} features",
                features.len()
            ));
        }
        if query_offsets.first() != Some(&0) || query_offsets.last() != Some(&n_docs) {
            return invalid("query offsets must start at 0 and end at the document count".into());
        }
        if query_offsets.windows(2).any(|w| w[0] >= w[1]) {
            return invalid("query offsets must be strictly increasing (no empty query)".into());
        }
        if query_ids.len() + 1 != query_offsets.len() {
            return invalid(format!("{} query ids for {} queries", query_ids.len(), query_offsets.len() - 1));
        }
        if let Some(ids) = &doc_ids
            && ids.len() != n_docs
        {
            return invalid(format!("{} doc ids for {n_docs} documents", ids.len()));
        }
        Ok(Self {
            n_features,
            features,
            labels,
            query_offsets,
            query_ids,
            doc_ids,
            convention: None,
            split_seed: None,
            derived: Derived::default(),
        })
    }

    /// Number of features per document.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Number of documents (rows).
    pub fn n_docs(&self) -> usize {
        self.labels.len()
    }

    /// Number of queries.
    pub fn n_queries(&self) -> usize {
        self.query_ids.len()
    }

    /// All feature values, row-major.
    pub fn features(&self) -> &[f32] {
        &self.features
    }

    /// The features of document `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.features[i * self.n_features..(i + 1) * self.n_features]
    }

    /// Iterates over the feature rows in document order.
    pub fn rows(&self) -> impl ExactSizeIterator<Item = &[f32]> + '_ {
        (0..self.n_docs()).map(|i| self.row(i))
    }

    /// All relevance grades in document order.
    pub fn labels(&self) -> &[Grade] {
        &self.labels
    }

    /// Query boundaries (`n_queries + 1` entries, first 0, last `n_docs`).
    pub fn query_offsets(&self) -> &[usize] {
        &self.query_offsets
    }

    /// Query ids in file order.
    pub fn query_ids(&self) -> &[String] {
        &self.query_ids
    }

    /// Document ids, when the source carried them.
    pub fn doc_ids(&self) -> Option<&[String]> {
        self.doc_ids.as_deref()
    }

    /// The metric convention of the data's source (`None`: not named; `ltr-metrics` then
    /// applies the suite's default). Learners that evaluate while training use it.
    pub fn convention(&self) -> Option<Convention> {
        self.convention
    }

    /// Names the convention the data set's numbers are computed under.
    pub fn set_convention(&mut self, convention: Option<Convention>) {
        self.convention = convention;
    }

    /// [`Dataset::set_convention`], by value.
    #[must_use]
    pub fn with_convention(mut self, convention: Option<Convention>) -> Self {
        self.convention = convention;
        self
    }

    /// The seed of the split this data set is, if its builder named one: the cross-validation
    /// protocol sets it on each fold's training split from the master seed and the content of
    /// the fold's files (not the algorithm or the grid point). A learner whose data
    /// preparation is random and must be the same for every fit on one split (the grades
    /// SSRankBoost hides) draws it from this seed; everything else random comes from the `rng`
    /// of [`crate::Learner::fit`]. Data sets built from this one ([`Dataset::concat`],
    /// [`Dataset::select_queries`]) are other splits and carry none.
    pub fn split_seed(&self) -> Option<u64> {
        self.split_seed
    }

    /// Names the seed of the split this data set is (see [`Dataset::split_seed`]).
    #[must_use]
    pub fn with_split_seed(mut self, seed: Option<u64>) -> Self {
        self.split_seed = seed;
        self
    }

    /// Values computed from this data set's contents alone (the tree learner's binned matrix),
    /// shared by every fit on it. See [`Derived`].
    pub fn derived(&self) -> &Derived {
        &self.derived
    }

    /// The highest grade present (0 for an empty set).
    pub fn max_grade(&self) -> Grade {
        self.labels.iter().copied().max().unwrap_or(0)
    }

    /// The borrowed view of query `q`.
    pub fn query(&self, q: usize) -> QueryView<'_> {
        let (start, end) = (self.query_offsets[q], self.query_offsets[q + 1]);
        QueryView {
            index: q,
            qid: &self.query_ids[q],
            start,
            n_features: self.n_features,
            features: &self.features[start * self.n_features..end * self.n_features],
            labels: &self.labels[start..end],
        }
    }

    /// Iterates over the queries in file order.
    pub fn queries(&self) -> impl ExactSizeIterator<Item = QueryView<'_>> + '_ {
        (0..self.n_queries()).map(|q| self.query(q))
    }

    /// A new data set holding the given queries (by index, in the given order).
    pub fn select_queries(&self, queries: &[usize]) -> Result<Self> {
        let mut b = DatasetBuilder::new(self.n_features);
        for &q in queries {
            if q >= self.n_queries() {
                return Err(Error::InvalidDataset {
                    reason: format!("query index {q} out of range ({} queries)", self.n_queries()),
                });
            }
            let view = self.query(q);
            b.start_query(view.qid);
            for i in 0..view.len() {
                let doc_id = self.doc_ids.as_ref().map(|d| d[view.start + i].as_str());
                b.push_doc(view.labels[i], view.row(i), doc_id)?;
            }
        }
        Ok(b.finish()?.with_convention(self.convention))
    }

    /// Concatenates data sets with the same feature count, keeping their order (and the
    /// first part's convention).
    pub fn concat(parts: &[&Dataset]) -> Result<Self> {
        let n_features = parts.first().map_or(0, |d| d.n_features);
        let mut b = DatasetBuilder::new(n_features);
        for part in parts {
            if part.n_features != n_features {
                return Err(Error::FeatureCount { expected: n_features, found: part.n_features });
            }
            for q in part.queries() {
                b.start_query(q.qid);
                for i in 0..q.len() {
                    let doc_id = part.doc_ids.as_ref().map(|d| d[q.start + i].as_str());
                    b.push_doc(q.labels[i], q.row(i), doc_id)?;
                }
            }
        }
        Ok(b.finish()?.with_convention(parts.first().and_then(|d| d.convention)))
    }
}

/// A cheap borrowed view of one query's documents.
#[derive(Debug, Clone, Copy)]
pub struct QueryView<'a> {
    /// Index of the query in its data set.
    pub index: usize,
    /// The query id as written in the file.
    pub qid: &'a str,
    /// Index of the query's first document in the data set.
    pub start: usize,
    /// Features per document.
    pub n_features: usize,
    /// The query's feature rows, row-major.
    pub features: &'a [f32],
    /// The query's grades.
    pub labels: &'a [Grade],
}

impl<'a> QueryView<'a> {
    /// Number of documents of the query.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether the query has no documents (never true for a built data set).
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// The features of the query's `i`-th document.
    pub fn row(&self, i: usize) -> &'a [f32] {
        &self.features[i * self.n_features..(i + 1) * self.n_features]
    }

    /// The document index range of this query in its data set.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.len()
    }
}

/// Incremental construction of a [`Dataset`], one query at a time.
#[derive(Debug, Clone)]
pub struct DatasetBuilder {
    n_features: usize,
    features: Vec<f32>,
    labels: Vec<Grade>,
    query_offsets: Vec<usize>,
    query_ids: Vec<String>,
    doc_ids: Vec<String>,
    any_doc_id: bool,
}

impl DatasetBuilder {
    /// An empty builder for rows of `n_features` values.
    pub fn new(n_features: usize) -> Self {
        Self {
            n_features,
            features: Vec::new(),
            labels: Vec::new(),
            query_offsets: vec![0],
            query_ids: Vec::new(),
            doc_ids: Vec::new(),
            any_doc_id: false,
        }
    }

    /// Starts a new query; documents pushed next belong to it.
    pub fn start_query(&mut self, qid: &str) {
        self.close_query();
        self.query_ids.push(qid.to_owned());
    }

    fn close_query(&mut self) {
        if self.query_ids.len() == self.query_offsets.len() {
            self.query_offsets.push(self.labels.len());
        }
    }

    /// Appends one document to the current query.
    pub fn push_doc(&mut self, label: Grade, row: &[f32], doc_id: Option<&str>) -> Result<()> {
        if row.len() != self.n_features {
            return Err(Error::FeatureCount { expected: self.n_features, found: row.len() });
        }
        if self.query_ids.len() != self.query_offsets.len() {
            return Err(Error::InvalidDataset { reason: "document pushed before any query".into() });
        }
        self.features.extend_from_slice(row);
        self.labels.push(label);
        self.any_doc_id |= doc_id.is_some();
        self.doc_ids.push(doc_id.unwrap_or_default().to_owned());
        Ok(())
    }

    /// Checks the invariants and returns the data set.
    pub fn finish(mut self) -> Result<Dataset> {
        self.close_query();
        let doc_ids = self.any_doc_id.then_some(self.doc_ids);
        Dataset::from_parts(
            self.n_features,
            self.features,
            self.labels,
            self.query_offsets,
            self.query_ids,
            doc_ids,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Dataset {
        let mut b = DatasetBuilder::new(2);
        b.start_query("1");
        b.push_doc(2, &[1.0, 2.0], Some("a")).unwrap();
        b.push_doc(0, &[3.0, 4.0], Some("b")).unwrap();
        b.start_query("7");
        b.push_doc(1, &[5.0, 6.0], Some("c")).unwrap();
        b.finish().unwrap()
    }

    #[test]
    fn a_split_seed_names_one_split_only() {
        let d = tiny().with_split_seed(Some(9));
        assert_eq!(d.split_seed(), Some(9));
        assert_eq!(tiny().split_seed(), None);
        assert_ne!(d, tiny());
        // Another split built from it carries none.
        assert_eq!(d.select_queries(&[0]).unwrap().split_seed(), None);
        assert_eq!(Dataset::concat(&[&d]).unwrap().split_seed(), None);
    }

    #[test]
    fn views_borrow_the_right_rows() {
        let d = tiny();
        assert_eq!(d.n_queries(), 2);
        assert_eq!(d.n_docs(), 3);
        let q = d.query(1);
        assert_eq!(q.qid, "7");
        assert_eq!(q.row(0), &[5.0, 6.0]);
        assert_eq!(q.range(), 2..3);
        assert_eq!(d.query(0).labels, &[2, 0]);
        assert_eq!(d.max_grade(), 2);
    }

    #[test]
    fn empty_queries_are_rejected() {
        let mut b = DatasetBuilder::new(1);
        b.start_query("1");
        b.start_query("2");
        b.push_doc(0, &[0.0], None).unwrap();
        assert!(b.finish().is_err());
    }

    #[test]
    fn select_and_concat_round_trip() {
        let d = tiny();
        let a = d.select_queries(&[0]).unwrap();
        let b = d.select_queries(&[1]).unwrap();
        assert_eq!(Dataset::concat(&[&a, &b]).unwrap(), d);
        assert!(d.select_queries(&[5]).is_err());
    }

    #[test]
    fn from_parts_checks_lengths() {
        assert!(
            Dataset::from_parts(2, vec![0.0; 3], vec![0, 1], vec![0, 2], vec!["q".into()], None).is_err()
        );
        assert!(
            Dataset::from_parts(1, vec![0.0; 2], vec![0, 1], vec![0, 1], vec!["q".into()], None).is_err()
        );
    }
}
