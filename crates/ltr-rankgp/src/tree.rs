//! Expression trees over features and constants with `+`, `-`, `x` and protected division,
//! stored in prefix order, with the random constructions and the variation operators of
//! tree-based genetic programming (Koza 1992).
//!
//! Every operation is *closed* over the finite numbers: a leaf reads its feature with NaN
//! taken as 0 and infinities as the largest finite values, and each node saturates its result
//! the same way, so a tree scores any row with a finite number. Division by 0 gives 1
//! (Koza's protected division).

use ltr_core::Rng;
use serde::{Deserialize, Serialize};

/// One node of a tree, in prefix order.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Node {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a x b`.
    Mul,
    /// Protected division `a / b` ([`protected_div`]).
    Div,
    /// The value of feature `k` (0-based; written `f{k + 1}`, the file's number).
    Feature(usize),
    /// A constant.
    Const(f64),
}

impl Node {
    /// Number of children: 2 for the operators, 0 for the leaves.
    pub fn arity(self) -> usize {
        match self {
            Self::Add | Self::Sub | Self::Mul | Self::Div => 2,
            Self::Feature(_) | Self::Const(_) => 0,
        }
    }

    fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Self::Add => finite(a + b),
            Self::Sub => finite(a - b),
            Self::Mul => finite(a * b),
            _ => protected_div(a, b),
        }
    }
}

/// `x` made finite: NaN becomes 0, infinities the largest finite values of their sign.
#[inline]
pub fn finite(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(f64::MIN, f64::MAX) }
}

/// Protected division: `a / b`, except 1 when `b` is 0; inputs and result made [`finite`], so
/// it is finite for every pair of inputs.
#[inline]
pub fn protected_div(a: f64, b: f64) -> f64 {
    let (a, b) = (finite(a), finite(b));
    if b == 0.0 { 1.0 } else { finite(a / b) }
}

/// A leaf's value for the raw feature value `x`.
#[inline]
fn leaf(x: f32) -> f64 {
    finite(f64::from(x))
}

/// The end (exclusive) of the subtree starting at `start` of a well-formed prefix sequence.
pub fn subtree_end(nodes: &[Node], start: usize) -> usize {
    let mut need = 1usize;
    let mut i = start;
    while need > 0 {
        need = need - 1 + nodes[i].arity();
        i += 1;
    }
    i
}

/// Whether `nodes` is exactly one tree in prefix order.
pub fn well_formed(nodes: &[Node]) -> bool {
    let mut need = 1usize;
    for (i, n) in nodes.iter().enumerate() {
        if need == 0 {
            return false;
        }
        need = need - 1 + n.arity();
        if need == 0 && i + 1 != nodes.len() {
            return false;
        }
    }
    need == 0 && !nodes.is_empty()
}

/// The depth of a well-formed tree (a single leaf has depth 0).
pub fn depth(nodes: &[Node]) -> usize {
    // Pending children per open operator, and the depth of each.
    let mut open: Vec<usize> = Vec::new();
    let mut deepest = 0;
    for n in nodes {
        deepest = deepest.max(open.len());
        if n.arity() > 0 {
            open.push(n.arity());
        } else {
            while let Some(top) = open.last_mut() {
                *top -= 1;
                if *top > 0 {
                    break;
                }
                open.pop();
            }
        }
    }
    deepest
}

/// Scores one row: the tree evaluated from its last node to its first, operands on a stack.
pub fn eval_row(nodes: &[Node], row: &[f32], stack: &mut Vec<f64>) -> f64 {
    stack.clear();
    for &n in nodes.iter().rev() {
        let v = match n {
            Node::Feature(k) => leaf(row[k]),
            Node::Const(c) => finite(c),
            op => {
                let a = stack.pop().unwrap_or(0.0);
                let b = stack.pop().unwrap_or(0.0);
                op.apply(a, b)
            }
        };
        stack.push(v);
    }
    stack.pop().unwrap_or(0.0)
}

/// Buffers of [`eval_columns`], reused across trees.
#[derive(Debug, Default)]
pub struct Columns {
    stack: Vec<Vec<f64>>,
    pool: Vec<Vec<f64>>,
}

/// Scores `n` documents into `out`, `value(k, j)` being feature `k` of document `j`: node by
/// node over whole columns, with the same operations in the same order as [`eval_row`], so
/// each score has the same bits.
pub fn eval_columns(
    nodes: &[Node],
    n: usize,
    value: impl Fn(usize, usize) -> f32,
    scratch: &mut Columns,
    out: &mut Vec<f64>,
) {
    let Columns { stack, pool } = scratch;
    for &node in nodes.iter().rev() {
        let mut buf = pool.pop().unwrap_or_default();
        match node {
            Node::Feature(k) => {
                buf.clear();
                buf.extend((0..n).map(|j| leaf(value(k, j))));
            }
            Node::Const(c) => {
                buf.clear();
                buf.resize(n, finite(c));
            }
            op => {
                pool.push(buf);
                let (Some(mut a), Some(b)) = (stack.pop(), stack.pop()) else { break };
                for (x, &y) in a.iter_mut().zip(&b) {
                    *x = op.apply(*x, y);
                }
                pool.push(b);
                buf = a;
            }
        }
        stack.push(buf);
    }
    out.clear();
    if let Some(top) = stack.pop() {
        out.extend_from_slice(&top);
        pool.push(top);
    }
    pool.append(stack);
}

/// What the random constructions draw from.
#[derive(Debug, Clone, Copy)]
pub struct Primitives {
    /// Features `0..n_features` are terminals.
    pub n_features: usize,
    /// Constants are drawn uniformly from `[-range, range)`.
    pub const_range: f64,
}

impl Primitives {
    /// A random terminal: each feature, or one draw of the constant, with equal chance.
    fn terminal(&self, rng: &mut Rng) -> Node {
        let k = rng.index(self.n_features + 1);
        if k < self.n_features {
            Node::Feature(k)
        } else {
            Node::Const(self.const_range * (2.0 * rng.uniform() - 1.0))
        }
    }

    fn operator(rng: &mut Rng) -> Node {
        [Node::Add, Node::Sub, Node::Mul, Node::Div][rng.index(4)]
    }

    /// Appends a random tree of depth at most `max_depth` to `out`: "full" puts operators at
    /// every node above `max_depth`, "grow" picks among all primitives at each node (Koza).
    pub fn random_tree(&self, rng: &mut Rng, max_depth: usize, full: bool, out: &mut Vec<Node>) {
        self.grow_at(rng, 0, max_depth, full, out);
    }

    fn grow_at(&self, rng: &mut Rng, depth: usize, max_depth: usize, full: bool, out: &mut Vec<Node>) {
        let operator = depth < max_depth && (full || rng.uniform() < 0.5);
        if operator {
            out.push(Self::operator(rng));
            self.grow_at(rng, depth + 1, max_depth, full, out);
            self.grow_at(rng, depth + 1, max_depth, full, out);
        } else {
            out.push(self.terminal(rng));
        }
    }
}

/// A random node of `nodes` as a crossover or mutation point: with probability
/// `internal_bias` an operator (when there is one), otherwise a leaf, uniformly within the kind
/// (Koza's 90/10 rule).
pub fn pick_point(nodes: &[Node], internal_bias: f64, rng: &mut Rng) -> usize {
    let internal = nodes.iter().filter(|n| n.arity() > 0).count();
    let want_internal = internal > 0 && rng.uniform() < internal_bias;
    let count = if want_internal { internal } else { nodes.len() - internal };
    let mut k = rng.index(count);
    for (i, n) in nodes.iter().enumerate() {
        if (n.arity() > 0) == want_internal {
            if k == 0 {
                return i;
            }
            k -= 1;
        }
    }
    0
}

/// `into` with its subtree at `at` replaced by `donor`'s subtree at `from`.
pub fn splice(into: &[Node], at: usize, donor: &[Node], from: usize) -> Vec<Node> {
    let (end, from_end) = (subtree_end(into, at), subtree_end(donor, from));
    let mut child = Vec::with_capacity(into.len() - (end - at) + (from_end - from));
    child.extend_from_slice(&into[..at]);
    child.extend_from_slice(&donor[from..from_end]);
    child.extend_from_slice(&into[end..]);
    child
}

/// Writes a tree in infix notation (`(f3 + 0.5) * f12`, features numbered from 1).
pub fn infix(nodes: &[Node]) -> String {
    fn at(nodes: &[Node], i: usize, out: &mut String) -> usize {
        match nodes[i] {
            Node::Feature(k) => {
                out.push_str(&format!("f{}", k + 1));
                i + 1
            }
            Node::Const(c) => {
                out.push_str(&format!("{c}"));
                i + 1
            }
            op => {
                let sym = match op {
                    Node::Add => " + ",
                    Node::Sub => " - ",
                    Node::Mul => " * ",
                    _ => " / ",
                };
                out.push('(');
                let j = at(nodes, i + 1, out);
                out.push_str(sym);
                let k = at(nodes, j, out);
                out.push(')');
                k
            }
        }
    }
    let mut s = String::new();
    if well_formed(nodes) {
        at(nodes, 0, &mut s);
    }
    s
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ltr_core::Rng;
    use proptest::prelude::*;

    use super::*;

    const F0: Node = Node::Feature(0);
    const F1: Node = Node::Feature(1);

    #[test]
    fn protected_division_by_hand() {
        assert_eq!(protected_div(3.0, 0.0), 1.0);
        assert_eq!(protected_div(3.0, -0.0), 1.0);
        assert_eq!(protected_div(3.0, 2.0), 1.5);
        assert_eq!(protected_div(f64::MAX, 0.5), f64::MAX);
        assert_eq!(protected_div(-f64::MAX, 0.5), f64::MIN);
        assert_eq!(protected_div(f64::NAN, 2.0), 0.0);
        assert_eq!(protected_div(1.0, f64::NAN), 1.0);
        assert_eq!(protected_div(f64::INFINITY, f64::INFINITY), 1.0);
        assert_eq!(protected_div(1.0, f64::INFINITY), 1.0 / f64::MAX);
    }

    #[test]
    fn prefix_structure_by_hand() {
        // (f1 + 2) * (f2 / f1)
        let t = [Node::Mul, Node::Add, F0, Node::Const(2.0), Node::Div, F1, F0];
        assert!(well_formed(&t));
        assert!(!well_formed(&t[..6]) && !well_formed(&[F0, F1]) && !well_formed(&[]));
        assert_eq!(subtree_end(&t, 0), 7);
        assert_eq!(subtree_end(&t, 1), 4);
        assert_eq!(subtree_end(&t, 4), 7);
        assert_eq!(depth(&t), 2);
        assert_eq!(depth(&[F0]), 0);
        assert_eq!(depth(&[Node::Add, F0, Node::Sub, F1, Node::Mul, F0, F1]), 3);
        assert_eq!(infix(&t), "((f1 + 2) * (f2 / f1))");
        let mut stack = Vec::new();
        // (3 + 2) * (0 / 3) = 0; with f2 = 6: 5 * 2 = 10; with f1 = 0: 2 * 1 = 2 (protected).
        assert_eq!(eval_row(&t, &[3.0, 0.0], &mut stack), 0.0);
        assert_eq!(eval_row(&t, &[3.0, 6.0], &mut stack), 10.0);
        assert_eq!(eval_row(&t, &[0.0, 6.0], &mut stack), 2.0);
        // Replace (f2 / f1) by f1 from another tree: (f1 + 2) * f1.
        let child = splice(&t, 4, &[Node::Sub, F1, F0], 2);
        assert_eq!(child, vec![Node::Mul, Node::Add, F0, Node::Const(2.0), F0]);
    }

    /// A random tree over 3 features (depth up to 6, constants anywhere in f64).
    fn tree() -> impl Strategy<Value = Vec<Node>> {
        (any::<u64>(), 0usize..=6, any::<bool>(), any::<f64>()).prop_map(|(seed, depth, full, c)| {
            let mut rng = Rng::new(seed);
            let mut t = Vec::new();
            Primitives { n_features: 3, const_range: 1.0 }.random_tree(&mut rng, depth, full, &mut t);
            // One constant set to an arbitrary value, NaN and infinities included.
            if let Some(n) = t.iter_mut().find(|n| matches!(n, Node::Const(_))) {
                *n = Node::Const(c);
            }
            t
        })
    }

    proptest! {
        #[test]
        fn protected_division_is_finite_on_any_input(a in any::<f64>(), b in any::<f64>()) {
            prop_assert!(protected_div(a, b).is_finite());
        }

        #[test]
        fn trees_score_any_row_finitely_and_alike_by_row_and_column(
            t in tree(),
            rows in proptest::collection::vec(proptest::array::uniform3(any::<f32>()), 1..8),
        ) {
            prop_assert!(well_formed(&t) && depth(&t) <= 6);
            let (mut scratch, mut out, mut stack) = (Columns::default(), Vec::new(), Vec::new());
            eval_columns(&t, rows.len(), |k, j| rows[j][k], &mut scratch, &mut out);
            for (r, &v) in rows.iter().zip(&out) {
                let by_row = eval_row(&t, r, &mut stack);
                prop_assert!(by_row.is_finite());
                prop_assert_eq!(by_row.to_bits(), v.to_bits());
            }
        }

        #[test]
        fn splicing_keeps_trees_well_formed(a in tree(), b in tree(), seed in any::<u64>()) {
            let mut rng = Rng::new(seed);
            let (i, j) = (pick_point(&a, 0.9, &mut rng), pick_point(&b, 0.9, &mut rng));
            let child = splice(&a, i, &b, j);
            prop_assert!(well_formed(&child));
            prop_assert!(depth(&child) <= depth(&a) + depth(&b));
        }
    }
}
