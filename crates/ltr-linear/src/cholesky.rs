//! Dense Cholesky factorisation `A = L L^T` and the triangular solves, for the small symmetric
//! positive (semi)definite systems of the linear learners (row-major `n x n`, `f64`).
//!
//! Every entry is computed as `L_ij = (A_ij - sum_{k<j} L_ik L_jk) / L_jj` with the products
//! subtracted one by one in `k` order, and the solves subtract in index order as well, so the
//! results do not depend on which caller factors or solves.

use crate::Error;

/// The smallest pivot accepted (anything not above it, or not finite, fails the factorisation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PivotFloor {
    /// Pivot `j` must exceed `tol` times the largest diagonal entry of `A`: one scale for the
    /// whole matrix (a singular or numerically rank-deficient system is refused).
    Largest(f64),
    /// Pivot `j` must exceed `tol` times its own diagonal entry `A_jj`: a vanishing pivot marks
    /// row `j` as (nearly) a linear combination of the rows before it.
    Own(f64),
}

/// Factors `a` (row-major `n x n`, only the lower triangle read) in place: on success its
/// lower triangle, diagonal included, holds `L`. The strict upper triangle is neither read nor
/// written, so a caller that stored the full symmetric matrix still has its columns there.
///
/// On failure at pivot `j`, rows `0..j` of the lower triangle hold the leading `j x j` block
/// of `L` (usable with [`solve_lower`] / [`solve_upper`] on vectors of length `j`).
///
/// # Errors
/// [`Error::NotPositiveDefinite`] with the first pivot at or below the floor.
pub fn factor(a: &mut [f64], n: usize, floor: PivotFloor) -> Result<(), Error> {
    debug_assert!(a.len() >= n * n);
    let largest = (0..n).map(|i| a[i * n + i]).fold(0.0_f64, f64::max);
    for i in 0..n {
        for j in 0..=i {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            if i == j {
                // The diagonal entry is still A's: L_ii is written just below.
                let min = match floor {
                    PivotFloor::Largest(tol) => tol * largest,
                    PivotFloor::Own(tol) => tol * a[i * n + i],
                };
                if !(s.is_finite() && s > min) {
                    return Err(Error::NotPositiveDefinite { index: i, pivot: s });
                }
                a[i * n + i] = s.sqrt();
            } else {
                a[i * n + j] = s / a[j * n + j];
            }
        }
    }
    Ok(())
}

/// Solves `L y = x` in place (forward substitution), `L` the factor from [`factor`] (row
/// stride `n`); uses its leading `x.len() x x.len()` block.
pub fn solve_lower(l: &[f64], n: usize, x: &mut [f64]) {
    for i in 0..x.len() {
        let mut s = x[i];
        for k in 0..i {
            s -= l[i * n + k] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
}

/// Solves `L^T y = x` in place (backward substitution), as [`solve_lower`].
pub fn solve_upper(l: &[f64], n: usize, x: &mut [f64]) {
    let m = x.len();
    for i in (0..m).rev() {
        let mut s = x[i];
        for k in i + 1..m {
            s -= l[k * n + i] * x[k];
        }
        x[i] = s / l[i * n + i];
    }
}

/// Solves `A x = b` for a symmetric positive definite `A` (row-major `b.len()` square, only
/// the lower triangle read): [`factor`] on a copy, then both solves.
///
/// # Errors
/// As [`factor`]: a failing pivot is reported rather than an unstable answer returned.
pub fn solve(a: &[f64], b: &[f64], floor: PivotFloor) -> Result<Vec<f64>, Error> {
    let n = b.len();
    let mut l = a[..n * n].to_vec();
    factor(&mut l, n, floor)?;
    let mut x = b.to_vec();
    solve_lower(&l, n, &mut x);
    solve_upper(&l, n, &mut x);
    Ok(x)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const TIGHT: PivotFloor = PivotFloor::Largest(1e-12);

    #[test]
    fn solves_a_hand_factored_system() {
        // A = [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt 2]].
        let mut l = [4.0, 2.0, 2.0, 3.0];
        factor(&mut l, 2, TIGHT).unwrap();
        assert_eq!((l[0], l[2], l[3]), (2.0, 1.0, 2f64.sqrt()));
        assert_eq!(l[1], 2.0, "the upper triangle is left alone");
        // A x = [2, 1]: x = [0.5, 0] (4*0.5 + 0 = 2, 2*0.5 + 0 = 1).
        let x = solve(&[4.0, 2.0, 2.0, 3.0], &[2.0, 1.0], TIGHT).unwrap();
        assert!((x[0] - 0.5).abs() < 1e-15 && x[1].abs() < 1e-15, "{x:?}");
        // A x = [6, 5]: x = [1, 1]. Only the lower triangle is read.
        let x = solve(&[4.0, 99.0, 2.0, 3.0], &[6.0, 5.0], TIGHT).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15, "{x:?}");
    }

    #[test]
    fn reports_singular_matrices() {
        // [[1, 1], [1, 1]]: second pivot 1 - 1*1 = 0.
        let e = solve(&[1.0, 1.0, 1.0, 1.0], &[1.0, 1.0], TIGHT).unwrap_err();
        assert_eq!(e, Error::NotPositiveDefinite { index: 1, pivot: 0.0 });
        assert!(solve(&[f64::NAN], &[1.0], TIGHT).is_err());
        assert!(solve(&[-1.0], &[1.0], TIGHT).is_err());
        assert!(solve(&[f64::INFINITY], &[1.0], TIGHT).is_err());
    }

    #[test]
    fn the_floors_differ_on_badly_scaled_matrices() {
        // diag(1e6, 1e-9): the second pivot is tiny against the largest diagonal entry but
        // not against its own.
        let a = [1e6, 0.0, 0.0, 1e-9];
        assert!(solve(&a, &[1.0, 1.0], PivotFloor::Largest(1e-12)).is_err());
        let x = solve(&a, &[1.0, 1.0], PivotFloor::Own(1e-11)).unwrap();
        assert!((x[1] - 1e9).abs() < 1e-3, "{x:?}");
        // Row 2 = row 1 + row 0 in the Gram matrix of (1, 0), (0, 1), (1, 1).
        let mut g = [1.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 2.0];
        let e = factor(&mut g, 3, PivotFloor::Own(1e-11)).unwrap_err();
        assert!(matches!(e, Error::NotPositiveDefinite { index: 2, .. }), "{e}");
        // The leading block is factored: solve [[1, 0], [0, 1]] y = (1, 1) on it.
        let mut y = [1.0, 1.0];
        solve_lower(&g, 3, &mut y);
        solve_upper(&g, 3, &mut y);
        assert_eq!(y, [1.0, 1.0]);
    }

    #[test]
    fn random_spd_systems_are_solved_to_rounding() {
        // A = B B^T + I for a pseudo-random B; check A x = b by the residual.
        let n = 7;
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let b: Vec<f64> = (0..n * n).map(|_| next()).collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] =
                    (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum::<f64>() + f64::from(u8::from(i == j));
            }
        }
        let rhs: Vec<f64> = (0..n).map(|_| next()).collect();
        let x = solve(&a, &rhs, TIGHT).unwrap();
        for i in 0..n {
            let r: f64 = (0..n).map(|j| a[i * n + j] * x[j]).sum::<f64>() - rhs[i];
            assert!(r.abs() < 1e-13, "row {i}: residual {r}");
        }
    }
}
