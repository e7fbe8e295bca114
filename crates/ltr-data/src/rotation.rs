//! The splits of a fold and the LETOR rotation that builds folds from subsets: the facts the
//! manifests, the embedded data, a user's split files and the harness all build on.

use serde::{Deserialize, Serialize};

/// The three splits of a fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Training split.
    Train,
    /// Validation split (model selection).
    Vali,
    /// Test split (reported numbers only).
    Test,
}

impl Split {
    /// All three, in order.
    pub const ALL: [Split; 3] = [Split::Train, Split::Vali, Split::Test];
}

impl std::fmt::Display for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Train => "train",
            Self::Vali => "vali",
            Self::Test => "test",
        })
    }
}

/// Which subsets make up the splits of one fold: indices (0-based) into S1..Sn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rotation {
    /// Training split: these subsets concatenated in this order.
    pub train: Vec<usize>,
    /// Validation split.
    pub vali: usize,
    /// Test split.
    pub test: usize,
}

impl Rotation {
    /// The subsets of one split, in concatenation order.
    pub fn of(&self, split: Split) -> Vec<usize> {
        match split {
            Split::Train => self.train.clone(),
            Split::Vali => vec![self.vali],
            Split::Test => vec![self.test],
        }
    }
}

/// The LETOR rotation of fold `fold` (1-based) over `subsets` subsets: train = S(k), ...,
/// S(k+n-3) concatenated in that order, vali = S(k+n-2), test = S(k+n-1), indices taken
/// mod n. For LETOR's five subsets: train = S(k), S(k+1), S(k+2); vali = S(k+3); test =
/// S(k+4). `None` when `fold` is not in `1..=subsets` or there are fewer than three subsets.
pub fn rotation(fold: u32, subsets: u32) -> Option<Rotation> {
    if subsets < 3 || fold == 0 || fold > subsets {
        return None;
    }
    let n = subsets as usize;
    let at = |offset: usize| (fold as usize - 1 + offset) % n;
    Some(Rotation { train: (0..n - 2).map(at).collect(), vali: at(n - 2), test: at(n - 1) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letor_rotation_of_five_subsets() {
        let r = |k| rotation(k, 5).map(|r| (r.train, r.vali, r.test));
        assert_eq!(r(1), Some((vec![0, 1, 2], 3, 4)));
        assert_eq!(r(2), Some((vec![1, 2, 3], 4, 0)));
        assert_eq!(r(4), Some((vec![3, 4, 0], 1, 2)));
        assert_eq!(r(5), Some((vec![4, 0, 1], 2, 3)));
        assert_eq!(r(0), None);
        assert_eq!(r(6), None);
        assert_eq!(rotation(1, 2), None);
        assert_eq!(rotation(2, 3), Some(Rotation { train: vec![1], vali: 2, test: 0 }));
    }

    #[test]
    fn every_subset_is_tested_once_and_validated_once() {
        for n in 3..8 {
            let all: Vec<Rotation> =
                (1..=n).map(|k| rotation(k, n).unwrap_or_else(|| panic!("{k}"))).collect();
            let mut tests: Vec<usize> = all.iter().map(|r| r.test).collect();
            let mut valis: Vec<usize> = all.iter().map(|r| r.vali).collect();
            tests.sort_unstable();
            valis.sort_unstable();
            assert_eq!(tests, (0..n as usize).collect::<Vec<_>>());
            assert_eq!(valis, tests);
            for r in &all {
                let mut used = r.of(Split::Train);
                used.extend([r.vali, r.test]);
                used.sort_unstable();
                assert_eq!(used, (0..n as usize).collect::<Vec<_>>(), "a fold uses every subset once");
            }
        }
    }
}
