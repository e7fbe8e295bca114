//! The order of a ranking: shared by the metrics and the file formats that write rankings
//! (TREC runs), so that both break ties the same way.

/// Document positions sorted by descending score; ties keep their original (file) order.
/// Scores must not be NaN.
pub fn rank_order(scores: &[f64], order: &mut Vec<usize>) {
    order.clear();
    order.extend(0..scores.len());
    order.sort_by(|&a, &b| scores[b].partial_cmp(&scores[a]).unwrap_or(std::cmp::Ordering::Equal));
}
