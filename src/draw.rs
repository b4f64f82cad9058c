//! Debug drawing: the world as line segments for a game's debug view, as Box2D's
//! `b2World_Draw`, Jolt's `DebugRenderer` and Rapier's `DebugRenderPipeline` give it.

use crate::body::BodyKind;
use crate::math::Vec3;
use crate::world::World;

/// The largest joint axis length and impulse scale [`World::debug_draw`] takes (exclusive).
const MAX_LENGTH: f64 = 1e6;

/// What a segment drawn by [`World::debug_draw`] belongs to, for the caller to colour it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DrawKind {
    /// A shape of an awake dynamic body.
    Dynamic,
    /// A shape of a dynamic body asleep.
    Sleeping,
    /// A shape of a kinematic body.
    Kinematic,
    /// A shape of a static body.
    Static,
    /// A sensor (whatever its body).
    Sensor,
    /// A joint: from each body's centre of mass to its anchor, and the joint's axis at body
    /// B's anchor (the x axis of B's joint frame).
    Joint,
    /// From a joint's anchor on A to its anchor on B. On a ball, hinge, fixed or universal
    /// joint its length is how far the joint is open (within `eps_p` while it holds: a point);
    /// on a slider or cylindrical joint it is the slide, on a distance joint the distance.
    JointGap,
    /// A contact point's normal, from the point towards B.
    ContactNormal,
    /// A contact point's impulse on B over the step (normal and friction), scaled.
    ContactImpulse,
}

/// What [`World::debug_draw`] draws, and at what size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DebugDrawOptions {
    /// Shapes' wireframes. Default true.
    pub shapes: bool,
    /// Joints: anchors, gaps and axes. Default true.
    pub joints: bool,
    /// The last step's contact points: normals and impulses. Default true.
    pub contacts: bool,
    /// Length of a joint's axis and of a contact's normal (m). Default 0.25.
    pub axis_length: f64,
    /// Metres per N s of a contact's impulse (0: impulses not drawn). Default 0.01.
    pub impulse_scale: f64,
}

impl Default for DebugDrawOptions {
    fn default() -> Self {
        DebugDrawOptions {
            shapes: true,
            joints: true,
            contacts: true,
            axis_length: 0.25,
            impulse_scale: 0.01,
        }
    }
}

impl World {
    /// Draws the world as line segments, each with what it belongs to: shapes' wireframes at
    /// the bodies' poses, joints (lines from the bodies' centres of mass to their anchors,
    /// the gap between the anchors, the axis), and the last step's contact points (their
    /// normals, their impulses). Between steps; it changes nothing. Errors: an option's length
    /// NaN or infinite ([`crate::ErrorKind::NonFinite`]), negative or 1e6 or more
    /// ([`crate::ErrorKind::InvalidArgument`]); nothing is drawn then.
    pub fn debug_draw(
        &self,
        options: &DebugDrawOptions,
        segment: &mut dyn FnMut(Vec3, Vec3, DrawKind),
    ) -> crate::Result<()> {
        let (axis, scale) = (options.axis_length, options.impulse_scale);
        if !(axis.is_finite() && scale.is_finite()) {
            return Err(crate::Error::new(
                crate::ErrorKind::NonFinite,
                format!("debug draw lengths must be finite, got {axis} and {scale}"),
            ));
        }
        if !((0.0..MAX_LENGTH).contains(&axis) && (0.0..MAX_LENGTH).contains(&scale)) {
            return Err(crate::Error::new(
                crate::ErrorKind::InvalidArgument,
                format!("debug draw lengths must be in [0, 1e6), got {axis} and {scale}"),
            ));
        }
        if options.shapes {
            for (_, s) in self.shape_slots() {
                let b = self.body_slot(s.body);
                let kind = if s.sensor {
                    DrawKind::Sensor
                } else {
                    match b.kind {
                        BodyKind::Static => DrawKind::Static,
                        BodyKind::Kinematic => DrawKind::Kinematic,
                        BodyKind::Dynamic if !b.is_awake() => DrawKind::Sleeping,
                        BodyKind::Dynamic => DrawKind::Dynamic,
                    }
                };
                s.wireframe(b, &mut |p, q| segment(p, q, kind));
            }
        }
        if options.joints {
            for j in self.joint_slots() {
                let (a, b) = (
                    j.body_a.map(|s| self.body_slot(s)),
                    self.body_slot(j.body_b),
                );
                let anchor_a = match a {
                    Some(a) => a.position() + a.rotation() * j.model.frame_a.anchor,
                    None => j.model.frame_a.anchor,
                };
                let anchor_b = b.position() + b.rotation() * j.model.frame_b.anchor;
                if let Some(a) = a {
                    segment(a.position(), anchor_a, DrawKind::Joint);
                }
                segment(b.position(), anchor_b, DrawKind::Joint);
                segment(anchor_a, anchor_b, DrawKind::JointGap);
                let axis = b.rotation() * (j.model.frame_b.rotation * Vec3::x());
                segment(
                    anchor_b,
                    anchor_b + options.axis_length * axis,
                    DrawKind::Joint,
                );
            }
        }
        if options.contacts {
            for c in self.contacts() {
                let p = c.point;
                segment(
                    p,
                    p + options.axis_length * c.normal,
                    DrawKind::ContactNormal,
                );
                let impulse = c.normal_impulse * c.normal + c.friction_impulse;
                if options.impulse_scale > 0.0 && impulse != Vec3::zeros() {
                    segment(
                        p,
                        p + options.impulse_scale * impulse,
                        DrawKind::ContactImpulse,
                    );
                }
            }
        }
        Ok(())
    }
}
