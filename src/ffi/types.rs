//! Plain value types shared by every object: vectors, quaternions, mass properties.

use super::ptr::Out;
use super::result::{FfiError, boundary, tenon_result};
use crate::{MassProperties, Mat3, Quat, Vec3};

/// A 3-vector of doubles. Its unit and frame are given where it is used.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct tenon_vec3 {
    /// x component.
    pub x: f64,
    /// y component.
    pub y: f64,
    /// z component.
    pub z: f64,
}

/// A rotation as a unit quaternion, stored x, y, z, w (w is the scalar part; identity is
/// (0, 0, 0, 1)). Inputs whose norm differs from 1 by more than 1e-6 are rejected with
/// `TENON_RESULT_INVALID_ROTATION`; closer ones are renormalized.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_quat {
    /// x component of the vector part.
    pub x: f64,
    /// y component of the vector part.
    pub y: f64,
    /// z component of the vector part.
    pub z: f64,
    /// Scalar part.
    pub w: f64,
}

impl Default for tenon_quat {
    fn default() -> Self {
        tenon_quat {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        }
    }
}

/// Mass and inertia of a body about its centre of mass, in the body's local frame.
/// Default (from `tenon_body_def_default()`): a 1 kg solid cube of 1 m side
/// (moments 1/6 kg m^2, products 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct tenon_mass_properties {
    /// Mass (kg), > 0 for a dynamic body.
    pub mass: f64,
    /// Diagonal of the inertia tensor about the centre of mass, local frame: Ixx, Iyy, Izz
    /// (kg m^2).
    pub inertia_diagonal: tenon_vec3,
    /// Off-diagonal entries of the (symmetric) inertia tensor, local frame: x = Ixy, y = Ixz,
    /// z = Iyz (kg m^2; tensor entries, not products of inertia with a sign flipped).
    pub inertia_off_diagonal: tenon_vec3,
}

const _: () = assert!(size_of::<tenon_vec3>() == 24);
const _: () = assert!(size_of::<tenon_quat>() == 32);
const _: () = assert!(size_of::<tenon_mass_properties>() == 56);

impl tenon_vec3 {
    pub(crate) fn from_na(v: Vec3) -> Self {
        tenon_vec3 {
            x: v.x,
            y: v.y,
            z: v.z,
        }
    }

    pub(crate) fn to_na(self) -> Vec3 {
        Vec3::new(self.x, self.y, self.z)
    }

    /// The vector, or `NonFinite` naming `what`.
    pub(crate) fn finite(self, what: &str) -> Result<Vec3, FfiError> {
        let v = self.to_na();
        if v.iter().all(|c| c.is_finite()) {
            Ok(v)
        } else {
            Err(FfiError::new(
                tenon_result::NonFinite,
                format!("{what} is NaN or infinite ({}, {}, {})", v.x, v.y, v.z),
            ))
        }
    }
}

impl tenon_quat {
    pub(crate) fn from_na(q: Quat) -> Self {
        tenon_quat {
            x: q.i,
            y: q.j,
            z: q.k,
            w: q.w,
        }
    }

    /// Checks and renormalizes: NaN -> `NonFinite`, |norm - 1| > 1e-6 -> `InvalidRotation`.
    pub(crate) fn to_na(self, what: &str) -> Result<Quat, FfiError> {
        let q = nalgebra::Quaternion::new(self.w, self.x, self.y, self.z);
        if q.coords.iter().any(|c| !c.is_finite()) {
            return Err(FfiError::new(
                tenon_result::NonFinite,
                format!("{what} is NaN or infinite"),
            ));
        }
        let n = q.norm();
        if (n - 1.0).abs() > 1e-6 {
            return Err(FfiError::new(
                tenon_result::InvalidRotation,
                format!("{what} must be a unit quaternion (x, y, z, w), its norm is {n}"),
            ));
        }
        Ok(Quat::new_normalize(q))
    }
}

impl tenon_mass_properties {
    pub(crate) fn from_rust(mp: MassProperties) -> Self {
        let i = mp.inertia;
        tenon_mass_properties {
            mass: mp.mass,
            inertia_diagonal: tenon_vec3 {
                x: i[(0, 0)],
                y: i[(1, 1)],
                z: i[(2, 2)],
            },
            inertia_off_diagonal: tenon_vec3 {
                x: i[(0, 1)],
                y: i[(0, 2)],
                z: i[(1, 2)],
            },
        }
    }

    pub(crate) fn to_rust(self) -> MassProperties {
        let (d, o) = (self.inertia_diagonal, self.inertia_off_diagonal);
        MassProperties {
            mass: self.mass,
            inertia: Mat3::new(d.x, o.x, o.y, o.x, d.y, o.z, o.y, o.z, d.z),
        }
    }
}

/// Mass properties of a solid box of uniform density: `mass` (kg, > 0) and half extents along
/// the local x, y, z axes (m, each > 0). Writes `*out` on success.
/// Errors: NULL `out`, NaN input, mass <= 0 (`TENON_RESULT_INVALID_MASS`), a half extent <= 0
/// (`TENON_RESULT_INVALID_ARGUMENT`). Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_mass_solid_box(
    mass: f64,
    half_extents: tenon_vec3,
    out: *mut tenon_mass_properties,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        let h = half_extents.finite("half_extents")?;
        if h.iter().any(|&c| c <= 0.0) {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                "every half extent must be > 0 m",
            ));
        }
        let mp = MassProperties::solid_box(mass, h);
        mp.validate()?;
        unsafe { out.write(tenon_mass_properties::from_rust(mp)) };
        Ok(())
    })
}

/// Mass properties of a solid sphere of uniform density: `mass` (kg, > 0), `radius` (m, > 0).
/// Writes `*out` on success. Errors as for `tenon_mass_solid_box()`. Thread-safe.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tenon_mass_solid_sphere(
    mass: f64,
    radius: f64,
    out: *mut tenon_mass_properties,
) -> tenon_result {
    boundary(|| {
        let out = Out::new(out, "out")?;
        if !radius.is_finite() {
            return Err(FfiError::new(
                tenon_result::NonFinite,
                "radius is NaN or infinite",
            ));
        }
        if radius <= 0.0 {
            return Err(FfiError::new(
                tenon_result::InvalidArgument,
                format!("radius must be > 0 m, got {radius}"),
            ));
        }
        let mp = MassProperties::solid_sphere(mass, radius);
        mp.validate()?;
        unsafe { out.write(tenon_mass_properties::from_rust(mp)) };
        Ok(())
    })
}
