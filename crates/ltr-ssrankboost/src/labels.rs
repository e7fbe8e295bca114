//! The unlabelled documents: which grades are hidden, and the grades the hidden documents
//! receive from their labelled neighbours.

use ltr_core::{Dataset, Rng};

/// Per document of `data`, whether its grade is hidden: in every query, `round(fraction n_q)`
/// of its `n_q` documents, the first of a uniformly random permutation of the query drawn
/// from `seed` (queries in order, one Fisher-Yates shuffle each). The permutation does not
/// depend on `fraction`, so a larger fraction hides a superset.
pub fn hidden_documents(data: &Dataset, fraction: f64, seed: u64) -> Vec<bool> {
    let mut rng = Rng::new(seed);
    let mut hidden = vec![false; data.n_docs()];
    let mut order = Vec::new();
    for q in data.queries() {
        let n = q.len();
        order.clear();
        order.extend(q.range());
        for t in (1..n).rev() {
            order.swap(t, rng.index(t + 1));
        }
        let hide = ((fraction * n as f64).round() as usize).min(n);
        for &i in &order[..hide] {
            hidden[i] = true;
        }
    }
    hidden
}

/// The grades the hidden documents receive: within each query, every labelled document
/// gives its grade to its `neighbours` nearest hidden documents (squared Euclidean distance of
/// the feature vectors; ties to the lower document index), and a hidden document chosen by
/// several takes the grade of the nearest of them (ties to the lower index). Hidden documents
/// no labelled document chose, and every labelled document, get `None`.
pub fn pseudo_grades(data: &Dataset, hidden: &[bool], neighbours: usize) -> Vec<Option<u8>> {
    let mut out = vec![None; data.n_docs()];
    let distance = |i: usize, j: usize| -> f64 {
        data.row(i).iter().zip(data.row(j)).map(|(&a, &b)| (f64::from(a) - f64::from(b)).powi(2)).sum()
    };
    for q in data.queries() {
        let unlabelled: Vec<usize> = q.range().filter(|&i| hidden[i]).collect();
        if unlabelled.is_empty() {
            continue;
        }
        // Per hidden document, its nearest claimant so far: (distance, labelled document).
        let mut claim: Vec<Option<(f64, usize)>> = vec![None; unlabelled.len()];
        let mut near: Vec<(f64, usize)> = Vec::with_capacity(unlabelled.len());
        for i in q.range().filter(|&i| !hidden[i]) {
            near.clear();
            near.extend(unlabelled.iter().enumerate().map(|(k, &j)| (distance(i, j), k)));
            let take = neighbours.min(near.len());
            let by_distance = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
            if take < near.len() {
                near.select_nth_unstable_by(take, by_distance);
            }
            for &(d, k) in &near[..take] {
                if claim[k].is_none_or(|(best, owner)| d.total_cmp(&best).then(i.cmp(&owner)).is_lt()) {
                    claim[k] = Some((d, i));
                }
            }
        }
        for (k, &j) in unlabelled.iter().enumerate() {
            out[j] = claim[k].map(|(_, owner)| data.labels()[owner]);
        }
    }
    out
}
