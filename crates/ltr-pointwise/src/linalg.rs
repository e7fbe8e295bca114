//! Dense symmetric positive definite solves (Cholesky), small `m x m` systems in `f64`.

/// Why a factorisation failed: the 0-based pivot that was not safely positive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NotPositiveDefinite {
    /// Index of the failing pivot (row of the matrix).
    pub index: usize,
    /// The pivot value found (before the square root).
    pub pivot: f64,
}

/// Solves `A x = b` for a symmetric positive definite `A` (row-major `m x m`, only the lower
/// triangle is read) by Cholesky `A = L L^T`.
///
/// A pivot not greater than `rel_tol * max_i A_ii` (or not finite) means `A` is singular or
/// too ill-conditioned for a meaningful solution in `f64`, and is reported instead of
/// returning an unstable answer.
pub(crate) fn cholesky_solve(a: &[f64], b: &[f64], rel_tol: f64) -> Result<Vec<f64>, NotPositiveDefinite> {
    let m = b.len();
    debug_assert_eq!(a.len(), m * m);
    let max_diag = (0..m).map(|i| a[i * m + i]).fold(0.0_f64, f64::max);
    let tol = rel_tol * max_diag;
    // L overwrites a copy of the lower triangle.
    let mut l = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let mut s = a[i * m + j];
            for k in 0..j {
                s -= l[i * m + k] * l[j * m + k];
            }
            if i == j {
                if !s.is_finite() || s <= tol {
                    return Err(NotPositiveDefinite { index: i, pivot: s });
                }
                l[i * m + i] = s.sqrt();
            } else {
                l[i * m + j] = s / l[j * m + j];
            }
        }
    }
    // Forward: L y = b.
    let mut y = vec![0.0; m];
    for i in 0..m {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i * m + k] * y[k];
        }
        y[i] = s / l[i * m + i];
    }
    // Backward: L^T x = y.
    let mut x = vec![0.0; m];
    for i in (0..m).rev() {
        let mut s = y[i];
        for k in i + 1..m {
            s -= l[k * m + i] * x[k];
        }
        x[i] = s / l[i * m + i];
    }
    Ok(x)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_hand_factored_system() {
        // A = [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt 2]].
        // A x = [2, 1]: x = [0.5, 0] (4*0.5 + 0 = 2, 2*0.5 + 0 = 1).
        let x = cholesky_solve(&[4.0, 2.0, 2.0, 3.0], &[2.0, 1.0], 1e-12).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-15 && x[1].abs() < 1e-15, "{x:?}");
        // A x = [6, 5]: x = [1, 1].
        let x = cholesky_solve(&[4.0, 2.0, 2.0, 3.0], &[6.0, 5.0], 1e-12).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15, "{x:?}");
    }

    #[test]
    fn reports_singular_matrices() {
        // [[1, 1], [1, 1]]: second pivot 1 - 1*1 = 0.
        let e = cholesky_solve(&[1.0, 1.0, 1.0, 1.0], &[1.0, 1.0], 1e-12).unwrap_err();
        assert_eq!(e.index, 1);
        assert!(cholesky_solve(&[f64::NAN], &[1.0], 1e-12).is_err());
        assert!(cholesky_solve(&[-1.0], &[1.0], 1e-12).is_err());
    }
}
