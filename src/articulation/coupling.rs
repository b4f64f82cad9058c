//! A contact coupled to the island it touches (Tomcin section 7, Appendix C): the contact's
//! rows are appended to the island's factored `A` as the last rows, so the impulse of a Gauss-
//! Seidel visit sees the whole mechanism (the block at the end of a long rod, Fig. 1d) and comes
//! with the joint impulses that keep every joint row's velocity unchanged.
//!
//! With the contact's impulse taken along the three world axes at its point, the bordered
//! system of Appendix C is
//!
//! ```text
//! [ A    A12 ] [x]   [0]      A12 = J M^-1 J_c^T (n_rows x 3),  A22 = J_c M^-1 J_c^T
//! [ A21  A22 ] [p] = [b]
//! ```
//!
//! With `A = L L^T` (eq. 18-20): `U = L^-1 A12` by three forward substitutions, once per
//! contact and factorization; the Schur complement `K = A22 - U^T U` is the contact point's
//! inverse effective mass with the joints held (3x3, any direction `d` gives `d^T K d`); and
//! the joint impulses of a contact impulse `p` are `x = -L^-T (U p)` (one back substitution).
//! Directions of friction change every visit; the world axes make the border independent of
//! them. The fill-reducing permutation stays inside the factor (`forward`/`backward` keep the
//! row order of `A`).

use super::island::{Island, Side, row_times};
use crate::math::{Mat3, Vec3};

/// One side of a contact on a body of the island: local index, world offset of the contact
/// point from the body's centre of mass, and the sign of the contact impulse on it (+1 for the
/// contact's body B, -1 for A).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactSide {
    pub l: u32,
    pub r: Vec3,
    pub sign: f64,
}

impl Island {
    /// Factorizations so far: a contact's border is valid while this has not changed.
    pub fn factor_version(&self) -> u64 {
        self.factor_version
    }

    /// Computes `U = L^-1 A12` into `u` (three columns of `n_rows`, one per world axis) for a
    /// contact whose sides on this island are `sides`, and returns `U^T U` (less the extra `K` of a split body's part).
    pub fn contact_border(&mut self, sides: &[ContactSide], u: &mut [f64]) -> Mat3 {
        let n = self.n_rows;
        if n == 0 {
            return Mat3::zeros();
        }
        let u = &mut u[..3 * n];
        u.fill(0.0);
        let zero = [0.0; 6];
        for s in sides {
            let l = s.l as usize;
            // M^-1 of the unit impulses along the world axes at the contact point
            let d: [[f64; 6]; 3] = std::array::from_fn(|k| {
                let mut e = Vec3::zeros();
                e[k] = s.sign;
                let (dv, dw) = (self.inv_mass[l] * e, self.iinv[l] * s.r.cross(&e));
                [dv.x, dv.y, dv.z, dw.x, dw.y, dw.z]
            });
            for ij in &self.joints {
                let on_a = match (ij.a, ij.b) {
                    (Side::Dyn(a), _) if a == s.l => true,
                    (_, Side::Dyn(b)) if b == s.l => false,
                    _ => continue,
                };
                for r in ij.off as usize..(ij.off + ij.n) as usize {
                    for (k, dk) in d.iter().enumerate() {
                        let (da, db) = if on_a { (dk, &zero) } else { (&zero, dk) };
                        u[k * n + r] += row_times(&self.rows[r].j, da, db);
                    }
                }
            }
        }
        for col in u.chunks_exact_mut(n) {
            self.factor.forward(col);
        }
        let mut s = Mat3::zeros();
        // The contact's own `K` counts a split body whole (the contacts see bodies), but its
        // rows act on the first part alone: `A22` has that part's `K`, `n_P` times the whole's.
        for side in sides {
            let l = side.l as usize;
            let np = f64::from(self.parts[l]);
            if np > 1.0 {
                let rx = crate::math::skew(&side.r);
                let k_part = Mat3::identity() * self.inv_mass[l] - rx * self.iinv[l] * rx;
                s -= k_part * (1.0 - 1.0 / np);
            }
        }
        for i in 0..3 {
            for j in 0..=i {
                let ui = &u[i * n..(i + 1) * n];
                let uj = &u[j * n..(j + 1) * n];
                let v: f64 = ui.iter().zip(uj).map(|(a, b)| a * b).sum();
                s[(i, j)] += v;
                if i != j {
                    s[(j, i)] += v;
                }
            }
        }
        s
    }

    /// Applies the world impulse `p` at the contact's `sides` (the border `u` from
    /// [`Island::contact_border`]) and the joint impulses `x = -L^-T (U p)` with it, so that
    /// `J u` of the joint rows does not change (up to the Tikhonov term).
    pub fn apply_contact_impulse(&mut self, sides: &[ContactSide], u: &[f64], p: &Vec3) {
        let n = self.n_rows;
        let mut y = std::mem::take(&mut self.contact_scratch);
        for (r, yr) in y[..n].iter_mut().enumerate() {
            *yr = -(u[r] * p.x + u[n + r] * p.y + u[2 * n + r] * p.z);
        }
        self.factor.backward(&mut y[..n]);
        for s in sides {
            let l = s.l as usize;
            let ps = s.sign * p;
            self.v[l] += self.inv_mass[l] * ps;
            self.w[l] += self.iinv[l] * s.r.cross(&ps);
        }
        self.apply_joint_impulses(&y[..n]);
        self.contact_scratch = y;
    }
}

#[cfg(test)]
mod tests {
    use super::ContactSide;
    use crate::contact::impulse::k_matrix;
    use crate::math::{Mat3, Vec3};
    use crate::{World, scenes};

    /// The coupled `K` of a contact point on the middle link of a hanging 3-link chain (the
    /// point's inverse effective mass with the joints held), after one step, with the link
    /// split into `parts` parts. The Tikhonov term is made negligible: `eps_t ||A||_1` differs
    /// between the split and the whole system (with the default it moves `K` by 2e-7 relative).
    fn coupled_k(parts: u32) -> Mat3 {
        let mut world = World::default();
        let mut settings = *world.settings();
        settings.eps_t = 1e-15;
        world.set_settings(settings).unwrap();
        let s = scenes::chain(&mut world, 3);
        world.set_body_split_parts(s.bodies[1], parts).unwrap();
        world.step(1.0 / 60.0).unwrap();
        assert_eq!(world.last_report().islands[0].split_parts, parts - 1);
        let slot = s.bodies[1].index;
        let sv = &mut world.solver;
        let (i, l) = sv.island_of(slot).unwrap();
        let m = sv.motion_state(&world.bodies, slot, 1.0 / 60.0);
        let r = Vec3::new(0.1, 0.04, -0.03);
        let mut u = vec![0.0; 3 * sv.island_rows(i)];
        let side = ContactSide {
            l: l as u32,
            r,
            sign: 1.0,
        };
        k_matrix(&m, &r) - sv.contact_border(i, &[side], &mut u)
    }

    /// Splitting a body (Tomcin section 5) leaves the mechanism's response to a contact on it
    /// unchanged: the contact's rows act on the first part, whose `A22` and border differ from
    /// the whole body's, but the Schur complement does not.
    #[test]
    fn split_body_has_the_same_coupled_k() {
        let whole = coupled_k(1);
        for parts in [2, 3, 5] {
            let split = coupled_k(parts);
            let rel = (split - whole).norm() / whole.norm();
            assert!(rel < 1e-10, "{parts} parts: {rel:e}\n{whole}\n{split}");
        }
    }
}
