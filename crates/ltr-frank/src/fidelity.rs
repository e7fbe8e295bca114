//! The fidelity loss of one pair and the quantities of FRank's per-round weight.
//!
//! For a pair whose first document should rank above the second (target probability
//! `P* = 1`), with `o = f(x_i) - f(x_j)` and the modelled probability `P = e^o / (1 + e^o)`:
//!
//! ```text
//! F(o)  = 1 - (sqrt(P* P) + sqrt((1 - P*)(1 - P))) = 1 - (1 + e^{-o})^{-1/2}
//! w(o)  = -2 F'(o) = e^{-o} (1 + e^{-o})^{-3/2}
//! ```
//!
//! Both are evaluated without overflow or cancellation for any finite `o`.

/// `F(o) = 1 - (1 + e^{-o})^{-1/2}`, in `(0, 1)`.
pub fn fidelity(o: f64) -> f64 {
    if o >= 0.0 {
        // 1 - 1/r with r = sqrt(1 + t): (r - 1)/r = t / (r (1 + r)), no cancellation.
        let t = (-o).exp();
        let r = (1.0 + t).sqrt();
        t / (r * (1.0 + r))
    } else {
        let s = o.exp();
        1.0 - (s / (1.0 + s)).sqrt()
    }
}

/// `w(o) = -2 F'(o) = e^{-o} (1 + e^{-o})^{-3/2}`, the pair's weight in the round's sums.
pub fn pair_weight(o: f64) -> f64 {
    if o >= 0.0 {
        let t = (-o).exp();
        t / ((1.0 + t) * (1.0 + t).sqrt())
    } else {
        // Multiplied through by e^{3o/2}: sqrt(s) / (1 + s)^{3/2} with s = e^o.
        let s = o.exp();
        s.sqrt() / ((1.0 + s) * (1.0 + s).sqrt())
    }
}

/// The weight of a binary weak ranker from its sums `up = sum w [h_i - h_j = 1]` and
/// `down = sum w [h_i - h_j = -1]`: `alpha = 1/2 ln(up / down)`, each side floored at
/// `floor (up + down)` so that a weak ranker that never (or always) reverses a pair gets a
/// finite weight.
pub fn alpha(up: f64, down: f64, floor: f64) -> f64 {
    let f = floor * (up + down);
    0.5 * (up.max(f) / down.max(f)).ln()
}

/// The decrease of the loss predicted at that weight, `1/2 (sqrt(up) - sqrt(down))^2`.
pub fn predicted_decrease(up: f64, down: f64) -> f64 {
    let d = up.sqrt() - down.sqrt();
    0.5 * d * d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_and_weight_by_hand_and_against_finite_differences() {
        // o = 0: P = 1/2, F = 1 - 1/sqrt 2, w = 2^{-3/2}.
        assert!((fidelity(0.0) - (1.0 - 0.5f64.sqrt())).abs() < 1e-16);
        assert!((pair_weight(0.0) - 2f64.powf(-1.5)).abs() < 1e-16);
        // o = ln 2: P = 2/3; o = -ln 2: P = 1/3.
        let ln2 = 2f64.ln();
        assert!((fidelity(ln2) - (1.0 - (2.0f64 / 3.0).sqrt())).abs() < 1e-15);
        assert!((fidelity(-ln2) - (1.0 - (1.0f64 / 3.0).sqrt())).abs() < 1e-15);
        // w(ln 2) = (1/2) (3/2)^{-3/2}; w(-ln 2) = 2 * 3^{-3/2}.
        assert!((pair_weight(ln2) - 0.5 * 1.5f64.powf(-1.5)).abs() < 1e-15);
        assert!((pair_weight(-ln2) - 2.0 * 3f64.powf(-1.5)).abs() < 1e-15);
        for o in [-30.0, -3.0, -0.4, 0.0, 0.7, 5.0, 40.0] {
            let h = 1e-6;
            let fd = (fidelity(o + h) - fidelity(o - h)) / (2.0 * h);
            assert!((-2.0 * fd - pair_weight(o)).abs() < 1e-8, "o = {o}");
            assert!(fidelity(o) > 0.0 && fidelity(o) < 1.0);
        }
        // Far in the tails: no overflow, the right limits.
        assert!(fidelity(800.0) == 0.0 && pair_weight(800.0) == 0.0);
        assert!(fidelity(-800.0) == 1.0 && pair_weight(-800.0) == 0.0);
        // Tiny losses keep their relative precision: F(o) ~ e^{-o} / 2.
        assert!((fidelity(40.0) / ((-40.0f64).exp() / 2.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn weight_and_predicted_decrease() {
        assert!((alpha(4.0, 1.0, 1e-9) - 0.5 * 4f64.ln()).abs() < 1e-15);
        assert!(alpha(1.0, 4.0, 1e-9) < 0.0);
        assert!((alpha(1.0, 0.0, 1e-9) - 0.5 * 1e9f64.ln()).abs() < 1e-12);
        assert!((predicted_decrease(4.0, 1.0) - 0.5).abs() < 1e-15);
    }
}
