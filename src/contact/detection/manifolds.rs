//! Contact manifolds without a heap allocation per pair and step.
//!
//! Parry's manifold functions carry a point's data (the warm start) over to the next step by
//! matching the new points with a copy of the old ones (`match_contacts`): they clone the
//! pair's point list, or swap it for a new one, every time they recompute it. Its contact of two
//! penetrating convex shapes also builds a new EPA polytope (four growing buffers) per call. On a
//! box resting on the ground that is one allocation per step, on a convex hull or a cylinder
//! 10 to 40. [`Manifolds`] dispatches as parry's `DefaultQueryDispatcher` does and computes the
//! same manifolds bit for bit, but keeps the old points and the EPA's buffers in a [`Scratch`]
//! the detector owns, so a pair whose lists have grown allocates nothing.
//!
//! Composite shapes (compounds, meshes, height fields) keep a manifold per part their partner
//! touches. Parry's functions for compounds and height fields build that list anew every step,
//! and its mesh function whenever the shape leaves the box around the triangles it last tested;
//! this module's copies ([`Parts`], [`MeshParts`]) swap it with the last list, whose buffer they
//! reuse. A mesh's triangles that come into reach reuse the manifolds of those that left it.
//! Still allocating: new pairs, and lists growing to a new largest size.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;
use std::sync::Mutex;

use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::query::details::{NormalConstraints, NormalConstraintsPair};
use parry3d_f64::query::epa::EPA;
use parry3d_f64::query::gjk::{self, CsoPoint, GJKResult, VoronoiSimplex};
use parry3d_f64::query::{
    ClosestPoints, Contact, ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher,
    NonlinearRigidMotion, PersistentQueryDispatcher, QueryDispatcher, ShapeCastHit,
    ShapeCastOptions, ShapeDistance, ShapeIntersection, TrackedContact, TypedWorkspaceData,
    Unsupported, WorkspaceData,
};
use parry3d_f64::shape::{
    CompositeShape, HalfSpace, HeightField, PackedFeatureId, PolygonalFeature, PolygonalFeatureMap,
    Shape, ShapeType, TriMesh, TriMeshFlags, Triangle,
};
use parry3d_f64::utils::PoseOpt;

/// The kinds of [`Parts`] workspaces.
const COMPOSITE_SHAPE: u8 = 0;
const COMPOSITE_COMPOSITE: u8 = 1;
const HEIGHTFIELD_SHAPE: u8 = 2;
const HEIGHTFIELD_COMPOSITE: u8 = 3;

/// The buffers [`Manifolds`] reuses: the old points of the pair being recomputed, and the EPA.
#[derive(Default)]
pub(crate) struct Scratch<D> {
    old: Vec<TrackedContact<D>>,
    epa: EPA,
}

/// The pair's workspace of kind `W`: a new one where it had none or another kind (a pair whose
/// composite shape changed kind does not read another's indices).
fn workspace_of<W: WorkspaceData + Default>(
    workspace: &mut Option<ContactManifoldsWorkspace>,
) -> &mut W {
    if workspace
        .as_ref()
        .is_none_or(|w| w.0.downcast_ref::<W>().is_none())
    {
        *workspace = Some(ContactManifoldsWorkspace(Box::<W>::default()));
    }
    workspace
        .as_mut()
        .and_then(|w| w.0.downcast_mut())
        .expect("the workspace was just made of this kind")
}

/// A composite pair's manifolds, one per pair of parts that may touch, keyed by the parts
/// (parry's composite workspaces): where each part pair's manifold is in the list and whether
/// it was met this step, and last step's list, whose buffer becomes the next step's. `KIND`
/// names the function that made it (as parry's workspaces have a type each): a pair whose
/// kind of composite changed starts a new workspace rather than reading another's indices.
struct Parts<K, D, const KIND: u8> {
    timestamp: bool,
    sub_detectors: HashMap<K, (usize, bool)>,
    old: Vec<ContactManifold<(), D>>,
}

impl<K: Clone, D: Clone, const KIND: u8> Clone for Parts<K, D, KIND> {
    fn clone(&self) -> Self {
        Parts {
            timestamp: self.timestamp,
            sub_detectors: self.sub_detectors.clone(),
            old: self.old.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.timestamp = source.timestamp;
        self.sub_detectors.clone_from(&source.sub_detectors);
        manifolds_clone_from(&mut self.old, &source.old);
    }
}

/// `dst.clone_from(src)` for lists of manifolds, keeping the manifolds and point lists `dst`
/// has (a derived `clone_from` of a manifold allocates its point list anew): a world copied
/// into a kept snapshot reuses them.
pub(crate) fn manifolds_clone_from<D: Clone>(
    dst: &mut Vec<ContactManifold<(), D>>,
    src: &[ContactManifold<(), D>],
) {
    dst.truncate(src.len());
    let kept = dst.len();
    for (m, s) in dst.iter_mut().zip(src) {
        // (every field named: a field parry adds does not compile until it is copied here)
        let ContactManifold {
            points,
            local_n1,
            local_n2,
            subshape1,
            subshape2,
            subshape_poses,
            data: (),
        } = s;
        m.points.clone_from(points);
        (m.local_n1, m.local_n2) = (*local_n1, *local_n2);
        (m.subshape1, m.subshape2) = (*subshape1, *subshape2);
        m.subshape_poses.clone_from(subshape_poses);
    }
    dst.extend(src[kept..].iter().cloned());
}

/// `dst.clone_from(src)` for a pair's workspace: when both are of the same kind made here, the
/// copy reuses `dst`'s buffers; otherwise it is parry's (a new box).
pub(crate) fn workspace_clone_from<D>(
    dst: &mut Option<ContactManifoldsWorkspace>,
    src: &Option<ContactManifoldsWorkspace>,
) where
    D: Clone + Send + Sync + 'static,
{
    fn same<W: Clone + WorkspaceData>(
        d: &mut ContactManifoldsWorkspace,
        s: &ContactManifoldsWorkspace,
    ) -> bool {
        match (d.0.downcast_mut::<W>(), s.0.downcast_ref::<W>()) {
            (Some(d), Some(s)) => {
                d.clone_from(s);
                true
            }
            _ => false,
        }
    }
    if let (Some(d), Some(s)) = (dst.as_mut(), src.as_ref())
        && (same::<Parts<u32, D, COMPOSITE_SHAPE>>(d, s)
            || same::<Parts<(u32, u32), D, COMPOSITE_COMPOSITE>>(d, s)
            || same::<Parts<u32, D, HEIGHTFIELD_SHAPE>>(d, s)
            || same::<Parts<(u32, u32), D, HEIGHTFIELD_COMPOSITE>>(d, s)
            || same::<MeshParts<D>>(d, s))
    {
        return;
    }
    dst.clone_from(src);
}

impl<K, D, const KIND: u8> Default for Parts<K, D, KIND> {
    fn default() -> Self {
        Parts {
            timestamp: false,
            sub_detectors: HashMap::new(),
            old: Vec::new(),
        }
    }
}

impl<K, D, const KIND: u8> WorkspaceData for Parts<K, D, KIND>
where
    K: Clone + Send + Sync + 'static,
    D: Clone + Send + Sync + 'static,
{
    fn as_typed_workspace_data(&self) -> TypedWorkspaceData<'_> {
        TypedWorkspaceData::Custom
    }

    fn clone_dyn(&self) -> Box<dyn WorkspaceData> {
        Box::new(self.clone())
    }
}

impl<K, D, const KIND: u8> Parts<K, D, KIND>
where
    K: Eq + Hash + Clone + Send + Sync + 'static,
    D: Default + Copy + Send + Sync + 'static,
{
    /// The pair's workspace (a new one where it had another kind), its timestamp turned, and
    /// last step's manifolds moved to its `old` list, `manifolds` left empty with the buffer of
    /// the list before.
    fn begin<'w>(
        workspace: &'w mut Option<ContactManifoldsWorkspace>,
        manifolds: &mut Vec<ContactManifold<(), D>>,
    ) -> &'w mut Self {
        let parts: &mut Self = workspace_of(workspace);
        parts.timestamp = !parts.timestamp;
        parts.old.clear();
        std::mem::swap(&mut parts.old, manifolds);
        parts
    }

    /// The index in `manifolds` of the manifold of the parts `key`: last step's (its points
    /// carried over), or a new one from `new`, pushed at the end.
    fn manifold(
        &mut self,
        key: K,
        manifolds: &mut Vec<ContactManifold<(), D>>,
        new: impl FnOnce() -> ContactManifold<(), D>,
    ) -> usize {
        let index = manifolds.len();
        match self.sub_detectors.entry(key) {
            Entry::Occupied(mut e) => {
                // (moved out whole: parry's `take` clones the boxed part poses)
                let m = std::mem::replace(&mut self.old[e.get().0], ContactManifold::new());
                *e.get_mut() = (index, self.timestamp);
                manifolds.push(m);
            }
            Entry::Vacant(e) => {
                e.insert((index, self.timestamp));
                manifolds.push(new());
            }
        }
        index
    }

    /// Forgets the part pairs not met this step.
    fn end(&mut self) {
        let t = self.timestamp;
        self.sub_detectors.retain(|_, d| d.1 == t);
    }
}

/// A mesh's pair: parry's mesh workspace (the triangles in reach of the box `local_aabb2`
/// around the other shape, last time's, and that box), with last list of manifolds kept, and
/// the manifolds of triangles that left the box, their point lists' buffers kept for the
/// triangles that come into it.
struct MeshParts<D> {
    interferences: Vec<u32>,
    old_interferences: Vec<u32>,
    local_aabb2: Aabb,
    old: Vec<ContactManifold<(), D>>,
    spare: Vec<ContactManifold<(), D>>,
}

impl<D: Clone> Clone for MeshParts<D> {
    fn clone(&self) -> Self {
        MeshParts {
            interferences: self.interferences.clone(),
            old_interferences: self.old_interferences.clone(),
            local_aabb2: self.local_aabb2,
            old: self.old.clone(),
            spare: self.spare.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.interferences.clone_from(&source.interferences);
        self.old_interferences.clone_from(&source.old_interferences);
        self.local_aabb2 = source.local_aabb2;
        manifolds_clone_from(&mut self.old, &source.old);
        manifolds_clone_from(&mut self.spare, &source.spare);
    }
}

impl<D> Default for MeshParts<D> {
    fn default() -> Self {
        MeshParts {
            interferences: Vec::new(),
            old_interferences: Vec::new(),
            local_aabb2: Aabb::new_invalid(),
            old: Vec::new(),
            spare: Vec::new(),
        }
    }
}

impl<D: Clone + Send + Sync + 'static> WorkspaceData for MeshParts<D> {
    fn as_typed_workspace_data(&self) -> TypedWorkspaceData<'_> {
        TypedWorkspaceData::Custom
    }

    fn clone_dyn(&self) -> Box<dyn WorkspaceData> {
        Box::new(self.clone())
    }
}

impl<D: Default + Copy> MeshParts<D> {
    /// A manifold of the triangle (`id1`, `id2`) as `ContactManifold::with_data` makes it, from
    /// a spare one's buffer where there is one (the roomiest first: the spares of triangles in
    /// reach but never touched have none to give).
    fn fresh(&mut self, (id1, id2): (u32, u32)) -> ContactManifold<(), D> {
        let roomiest = (0..self.spare.len()).max_by_key(|&k| self.spare[k].points.capacity());
        match roomiest.map(|k| self.spare.swap_remove(k)) {
            Some(mut m) => {
                m.points.clear();
                (m.local_n1, m.local_n2) = (Vector::ZERO, Vector::ZERO);
                (m.subshape1, m.subshape2) = (id1, id2);
                m.subshape_poses = None;
                m
            }
            None => ContactManifold::with_data(id1, id2, ()),
        }
    }
}

/// Parry's dispatch of persistent contact manifolds, allocating nothing once its buffers and the
/// pairs' point lists have grown (module docs). Parry's dispatchers take `&self` and are `Sync`:
/// the scratch is behind a mutex, taken once per convex pair, never contended (one thread
/// detects).
pub(crate) struct Manifolds<'a, D> {
    scratch: Mutex<&'a mut Scratch<D>>,
}

impl<'a, D> Manifolds<'a, D> {
    pub(crate) fn new(scratch: &'a mut Scratch<D>) -> Self {
        Manifolds {
            scratch: Mutex::new(scratch),
        }
    }

    fn scratch(&self) -> std::sync::MutexGuard<'_, &'a mut Scratch<D>> {
        // (a panic while it was held cannot have left the buffers in a state that matters:
        // they are cleared before every use)
        self.scratch.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The one-shot queries, as parry's (the composite shapes' manifolds may ask them).
impl<D: Send> QueryDispatcher for Manifolds<'_, D> {
    fn intersection_test(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeIntersection, Unsupported> {
        DefaultQueryDispatcher.intersection_test(pos12, g1, g2)
    }

    fn distance(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
    ) -> Result<ShapeDistance, Unsupported> {
        DefaultQueryDispatcher.distance(pos12, g1, g2)
    }

    fn contact(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        prediction: f64,
    ) -> Result<Option<Contact>, Unsupported> {
        DefaultQueryDispatcher.contact(pos12, g1, g2, prediction)
    }

    fn closest_points(
        &self,
        pos12: &Pose,
        g1: &dyn Shape,
        g2: &dyn Shape,
        max_dist: f64,
    ) -> Result<ClosestPoints, Unsupported> {
        DefaultQueryDispatcher.closest_points(pos12, g1, g2, max_dist)
    }

    fn cast_shapes(
        &self,
        pos12: &Pose,
        local_vel12: Vector,
        g1: &dyn Shape,
        g2: &dyn Shape,
        options: ShapeCastOptions,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        DefaultQueryDispatcher.cast_shapes(pos12, local_vel12, g1, g2, options)
    }

    fn cast_shapes_nonlinear(
        &self,
        motion1: &NonlinearRigidMotion,
        g1: &dyn Shape,
        motion2: &NonlinearRigidMotion,
        g2: &dyn Shape,
        start_time: f64,
        end_time: f64,
        stop_at_penetration: bool,
    ) -> Result<Option<ShapeCastHit>, Unsupported> {
        DefaultQueryDispatcher.cast_shapes_nonlinear(
            motion1,
            g1,
            motion2,
            g2,
            start_time,
            end_time,
            stop_at_penetration,
        )
    }
}

impl<D: Default + Copy + Send + Sync> Manifolds<'_, D> {
    /// Recomputes `manifold` with `compute` (lent the EPA), from an empty point list: the old
    /// points are set aside in the scratch and their data carried over to the new ones after
    /// (`match_contacts`), where parry's functions clone the list or replace it.
    fn recompute<R>(
        &self,
        manifold: &mut ContactManifold<(), D>,
        compute: impl FnOnce(&mut ContactManifold<(), D>, &mut EPA) -> R,
    ) -> R {
        let mut scratch = self.scratch();
        let Scratch { old, epa } = &mut **scratch;
        old.clear();
        old.append(&mut manifold.points);
        let r = compute(manifold, epa);
        manifold.match_contacts(old);
        r
    }

    /// Parry's `contact_manifold_halfspace_pfm`, its old points set aside ([`Self::recompute`]).
    fn halfspace_pfm(
        &self,
        pos12: &Pose,
        halfspace1: &HalfSpace,
        (pfm2, border_radius2): (&dyn PolygonalFeatureMap, f64),
        prediction: f64,
        manifold: &mut ContactManifold<(), D>,
        flipped: bool,
    ) {
        let normal1_2 = pos12.rotation.inverse() * halfspace1.normal;
        let mut feature2 = PolygonalFeature::default();
        pfm2.local_support_feature(-normal1_2, &mut feature2);
        self.recompute(manifold, |manifold, _| {
            for i in 0..feature2.num_vertices {
                let vtx2 = feature2.vertices[i];
                let vtx2_1 = pos12 * vtx2;
                let dist_to_plane = vtx2_1.dot(halfspace1.normal);
                if dist_to_plane - border_radius2 <= prediction {
                    manifold.points.push(TrackedContact::flipped(
                        vtx2_1 - halfspace1.normal * dist_to_plane,
                        vtx2 - normal1_2 * border_radius2,
                        PackedFeatureId::face(0),
                        feature2.vids[i],
                        dist_to_plane - border_radius2,
                        flipped,
                    ));
                }
            }
            if flipped {
                manifold.local_n1 = -normal1_2;
                manifold.local_n2 = halfspace1.normal;
            } else {
                manifold.local_n1 = halfspace1.normal;
                manifold.local_n2 = -normal1_2;
            }
        });
    }

    /// Parry's `contact_manifold_pfm_pfm`, its old points set aside and the EPA's buffers reused (its `contact_support_map_support_map_with_params` inlined: GJK, then the
    /// EPA where the shapes overlap).
    #[allow(clippy::too_many_arguments)]
    fn pfm_pfm(
        &self,
        pos12: &Pose,
        (pfm1, border_radius1): (&dyn PolygonalFeatureMap, f64),
        normal_constraints1: Option<&dyn NormalConstraints>,
        (pfm2, border_radius2): (&dyn PolygonalFeatureMap, f64),
        normal_constraints2: Option<&dyn NormalConstraints>,
        prediction: f64,
        manifold: &mut ContactManifold<(), D>,
    ) {
        if manifold.try_update_contacts(pos12) {
            return;
        }
        self.recompute(manifold, |manifold, epa| {
            let init_dir = manifold.local_n1.try_normalize();
            let total_prediction = prediction + border_radius1 + border_radius2;
            let dir = init_dir
                .or_else(|| pos12.translation.try_normalize())
                .unwrap_or(Vector::X);
            let mut simplex = VoronoiSimplex::new();
            simplex.reset(CsoPoint::from_shapes(pos12, pfm1, pfm2, dir));
            let mut contact =
                gjk::closest_points(pos12, pfm1, pfm2, total_prediction, true, &mut simplex);
            if contact == GJKResult::Intersection {
                contact = match epa.closest_points(pos12, pfm1, pfm2, &simplex) {
                    Some((p1, p2, n)) => GJKResult::ClosestPoints(p1, p2, n),
                    None => GJKResult::NoIntersection(Vector::X),
                };
            }
            match contact {
                GJKResult::ClosestPoints(p1, p2_1, dir) => {
                    let mut local_n1 = dir;
                    let mut local_n2 = pos12.rotation.inverse() * -dir;
                    let dist = (p2_1 - p1).dot(local_n1);
                    if !(normal_constraints1, normal_constraints2).project_local_normals(
                        pos12,
                        &mut local_n1,
                        &mut local_n2,
                    ) {
                        // (the contact discarded: no points)
                        return;
                    }
                    let mut feature1 = PolygonalFeature::default();
                    let mut feature2 = PolygonalFeature::default();
                    pfm1.local_support_feature_toward(local_n1, p1, &mut feature1);
                    pfm2.local_support_feature_toward(
                        local_n2,
                        pos12.inverse_transform_point(p2_1),
                        &mut feature2,
                    );
                    PolygonalFeature::contacts(
                        pos12,
                        &pos12.inverse(),
                        local_n1,
                        local_n2,
                        &feature1,
                        &feature2,
                        manifold,
                        false,
                    );
                    if local_n1 == dir {
                        manifold.points.push(TrackedContact::new(
                            p1,
                            pos12.inverse_transform_point(p2_1),
                            PackedFeatureId::UNKNOWN,
                            PackedFeatureId::UNKNOWN,
                            (p2_1 - p1).dot(local_n1),
                        ));
                    }
                    if normal_constraints1.is_some() || normal_constraints2.is_some() {
                        // (parry's guard against depths the normal correction made far too deep)
                        manifold
                            .points
                            .retain(|pt| dist >= 0.0 || pt.dist >= 0.0 || pt.dist >= dist * 5.0);
                    }
                    if border_radius1 != 0.0 || border_radius2 != 0.0 {
                        for contact in &mut manifold.points {
                            contact.local_p1 += local_n1 * border_radius1;
                            contact.local_p2 += local_n2 * border_radius2;
                            contact.dist -= border_radius1 + border_radius2;
                        }
                    }
                    manifold.local_n1 = local_n1;
                    manifold.local_n2 = local_n2;
                }
                GJKResult::NoIntersection(dir) => manifold.local_n1 = dir,
                _ => manifold.local_n1 = Vector::ZERO,
            }
        });
    }
}

/// Composite pairs: parry's functions (`contact_manifolds_composite_shape_shape`,
/// `..._composite_shape_composite_shape`, `..._heightfield_shape`,
/// `..._heightfield_composite_shape`) with their lists kept in [`Parts`]. The parts are met in
/// parry's order, so the manifolds come in the same order with the same points.
impl<D: Default + Copy + Send + Sync + 'static> Manifolds<'_, D> {
    /// Convex `a` (of the first composite or height field) against convex `b`, each with its
    /// normal constraints, as the pair's shapes are ordered: `flipped`, `b` is the pair's first
    /// shape. `pos` is the pose of the pair's second shape in its first's frame.
    fn in_order(
        &self,
        flipped: bool,
        pos: &Pose,
        (a, na): (&dyn Shape, Option<&dyn NormalConstraints>),
        (b, nb): (&dyn Shape, Option<&dyn NormalConstraints>),
        prediction: f64,
        manifold: &mut ContactManifold<(), D>,
    ) {
        let _ = if flipped {
            self.contact_manifold_convex_convex(pos, b, a, nb, na, prediction, manifold)
        } else {
            self.contact_manifold_convex_convex(pos, a, b, na, nb, prediction, manifold)
        };
    }

    /// A compound's parts (`composite1`) against a convex shape; `flipped`: the compound is
    /// the pair's second shape, `pos12` then the pose of the pair's first shape in the
    /// compound's frame.
    #[allow(clippy::too_many_arguments)]
    fn composite_shape(
        &self,
        pos12: &Pose,
        composite1: &dyn CompositeShape,
        shape2: &dyn Shape,
        prediction: f64,
        manifolds: &mut Vec<ContactManifold<(), D>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
        flipped: bool,
    ) {
        let parts = Parts::<u32, D, COMPOSITE_SHAPE>::begin(workspace, manifolds);
        let pos12 = *pos12;
        let pos21 = pos12.inverse();
        let deformable = composite1.is_deformable();
        let ls_aabb2_1 = shape2.compute_aabb(&pos12).loosened(prediction);
        for leaf1 in composite1.bvh().intersect_aabb(&ls_aabb2_1) {
            let mut fresh = false;
            let k = parts.manifold(leaf1, manifolds, || {
                fresh = true;
                let mut m = ContactManifold::new();
                if flipped {
                    (m.subshape1, m.subshape2) = (0, leaf1);
                } else {
                    (m.subshape1, m.subshape2) = (leaf1, 0);
                }
                m
            });
            let manifold = &mut manifolds[k];
            if deformable {
                manifold.mark_shapes_deformed();
            }
            composite1.map_part_at(leaf1, &mut |part_pos1, part_shape1, normal_constraints1| {
                if fresh {
                    if flipped {
                        manifold.set_subshape_pos2(part_pos1.copied());
                    } else {
                        manifold.set_subshape_pos1(part_pos1.copied());
                    }
                }
                let pos = if flipped {
                    part_pos1.prepend_to(&pos21)
                } else {
                    part_pos1.inv_mul(&pos12)
                };
                let part = (part_shape1, normal_constraints1);
                self.in_order(flipped, &pos, part, (shape2, None), prediction, manifold);
            });
        }
        parts.end();
    }

    /// Two composite shapes' parts (compounds, meshes): the one with the smaller bounding box
    /// is traversed inside the other's, as parry does.
    fn composite_composite(
        &self,
        pos12: &Pose,
        (mut composite1, mut composite2): (&dyn CompositeShape, &dyn CompositeShape),
        prediction: f64,
        manifolds: &mut Vec<ContactManifold<(), D>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
    ) {
        let parts = Parts::<(u32, u32), D, COMPOSITE_COMPOSITE>::begin(workspace, manifolds);
        let (mut pos12, mut pos21) = (*pos12, pos12.inverse());
        let (mut ls_aabb1, mut ls_aabb2) =
            (composite1.bvh().root_aabb(), composite2.bvh().root_aabb());
        let flipped =
            ls_aabb1.half_extents().length_squared() < ls_aabb2.half_extents().length_squared();
        if flipped {
            std::mem::swap(&mut composite1, &mut composite2);
            std::mem::swap(&mut pos12, &mut pos21);
            std::mem::swap(&mut ls_aabb1, &mut ls_aabb2);
        }
        let ls_aabb2_1 = ls_aabb2.transform_by(&pos12).loosened(prediction);
        let deformable = composite1.is_deformable() || composite2.is_deformable();
        for leaf1 in composite1.bvh().intersect_aabb(&ls_aabb2_1) {
            composite1.map_part_at(leaf1, &mut |part_pos1, part_shape1, normal_constraints1| {
                let pos211 = part_pos1.prepend_to(&pos21);
                let ls_part_aabb1_2 = part_shape1.compute_aabb(&pos211).loosened(prediction);
                for leaf2 in composite2.bvh().intersect_aabb(&ls_part_aabb1_2) {
                    composite2.map_part_at(
                        leaf2,
                        &mut |part_pos2, part_shape2, normal_constraints2| {
                            let pos2211 = part_pos2.inv_mul(&pos211);
                            let key = if flipped {
                                (leaf2, leaf1)
                            } else {
                                (leaf1, leaf2)
                            };
                            let k = parts.manifold(key, manifolds, || {
                                let mut m = ContactManifold::new();
                                if flipped {
                                    (m.subshape1, m.subshape2) = (leaf2, leaf1);
                                    m.set_subshape_pos1(part_pos2.copied());
                                    m.set_subshape_pos2(part_pos1.copied());
                                } else {
                                    (m.subshape1, m.subshape2) = (leaf1, leaf2);
                                    m.set_subshape_pos1(part_pos1.copied());
                                    m.set_subshape_pos2(part_pos2.copied());
                                }
                                m
                            });
                            let manifold = &mut manifolds[k];
                            if deformable {
                                manifold.mark_shapes_deformed();
                            }
                            let pos = if flipped { pos2211 } else { pos2211.inverse() };
                            let (part1, part2) = (
                                (part_shape1, normal_constraints1),
                                (part_shape2, normal_constraints2),
                            );
                            self.in_order(flipped, &pos, part1, part2, prediction, manifold);
                        },
                    );
                }
            });
        }
        parts.end();
    }

    /// A mesh's triangles against a convex shape (parry's `contact_manifolds_trimesh_shape`):
    /// the triangles in a box around the shape, 10 % (at most 0.1 m) larger, kept while the
    /// shape stays inside it; `flipped` as in [`Manifolds::composite_shape`]. A deformable mesh
    /// goes to [`Manifolds::composite_shape`], as in parry.
    #[allow(clippy::too_many_arguments)]
    fn trimesh_shape(
        &self,
        pos12: &Pose,
        trimesh1: &TriMesh,
        shape2: &dyn Shape,
        prediction: f64,
        manifolds: &mut Vec<ContactManifold<(), D>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
        flipped: bool,
    ) {
        if trimesh1.flags().contains(TriMeshFlags::DEFORMABLE) {
            return self.composite_shape(
                pos12, trimesh1, shape2, prediction, manifolds, workspace, flipped,
            );
        }
        let ws: &mut MeshParts<D> = workspace_of(workspace);
        let mut new_local_aabb2 = shape2.compute_aabb(pos12).loosened(prediction);
        let same_local_aabb2 = ws.local_aabb2.contains(&new_local_aabb2);
        ws.old.clear();
        if !same_local_aabb2 {
            let extra_margin =
                (new_local_aabb2.maxs - new_local_aabb2.mins).map(|e| (e / 10.0).min(0.1));
            new_local_aabb2.mins -= extra_margin;
            new_local_aabb2.maxs += extra_margin;
            std::mem::swap(&mut ws.old_interferences, &mut ws.interferences);
            std::mem::swap(manifolds, &mut ws.old);
            ws.interferences.clear();
            ws.interferences
                .extend(trimesh1.bvh().intersect_aabb(&new_local_aabb2));
            ws.local_aabb2 = new_local_aabb2;
        }
        // (the pose of the pair's second shape in its first's frame)
        let pos = if flipped { pos12.inverse() } else { *pos12 };
        let (mut old_inter, mut old_m) = (0, 0);
        for i in 0..ws.interferences.len() {
            let triangle_id = ws.interferences[i];
            if triangle_id >= trimesh1.num_triangles() as u32 {
                continue;
            }
            if !same_local_aabb2 {
                // (the triangles that left the box: their manifolds spare)
                while old_inter < ws.old_interferences.len()
                    && ws.old_interferences[old_inter] < triangle_id
                {
                    old_inter += 1;
                    if old_m < ws.old.len() {
                        let m = std::mem::replace(&mut ws.old[old_m], ContactManifold::new());
                        ws.spare.push(m);
                        old_m += 1;
                    }
                }
                let manifold = if ws.old_interferences.get(old_inter) != Some(&triangle_id) {
                    let ids = if flipped {
                        (0, triangle_id)
                    } else {
                        (triangle_id, 0)
                    };
                    ws.fresh(ids)
                } else {
                    old_inter += 1;
                    old_m += 1;
                    std::mem::replace(&mut ws.old[old_m - 1], ContactManifold::new())
                };
                manifolds.push(manifold);
            }
            let manifold = &mut manifolds[i];
            let triangle = trimesh1.triangle(triangle_id);
            let normals = trimesh1.triangle_normal_constraints(triangle_id);
            let constraints = normals.as_ref().map(|n| n as &dyn NormalConstraints);
            let triangle = (&triangle as &dyn Shape, constraints);
            self.in_order(
                flipped,
                &pos,
                triangle,
                (shape2, None),
                prediction,
                manifold,
            );
        }
        if !same_local_aabb2 {
            // (the rest of the last list: triangles past the box's last)
            for m in ws.old.drain(old_m..) {
                ws.spare.push(m);
            }
            ws.old_interferences.clear();
        }
    }

    /// A height field's triangles under a convex shape; `flipped` as in
    /// [`Manifolds::composite_shape`].
    #[allow(clippy::too_many_arguments)]
    fn heightfield_shape(
        &self,
        pos12: &Pose,
        heightfield1: &HeightField,
        shape2: &dyn Shape,
        prediction: f64,
        manifolds: &mut Vec<ContactManifold<(), D>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
        flipped: bool,
    ) {
        let parts = Parts::<u32, D, HEIGHTFIELD_SHAPE>::begin(workspace, manifolds);
        let ls_aabb2 = shape2.compute_aabb(pos12).loosened(prediction);
        let pos = if flipped { pos12.inverse() } else { *pos12 };
        heightfield1.map_elements_in_local_aabb(&ls_aabb2, &mut |i, triangle1| {
            let triangle1 = &seamless(heightfield1, i, triangle1);
            let (id1, id2) = if flipped { (0, i) } else { (i, 0) };
            let k = parts.manifold(i, manifolds, || ContactManifold::with_data(id1, id2, ()));
            let manifold = &mut manifolds[k];
            let pseudo_normals = heightfield1.triangle_normal_constraints(i);
            let normal_constraints1 = pseudo_normals.as_ref().map(|pn| pn as &_);
            let triangle = (triangle1 as &dyn Shape, normal_constraints1);
            self.in_order(
                flipped,
                &pos,
                triangle,
                (shape2, None),
                prediction,
                manifold,
            );
        });
        parts.end();
    }

    /// A height field's triangles under a compound's parts; `pos12`, `pos21` the poses between
    /// the height field and the compound, `flipped` as in [`Manifolds::composite_shape`].
    #[allow(clippy::too_many_arguments)]
    fn heightfield_composite(
        &self,
        (pos12, pos21): (&Pose, &Pose),
        heightfield1: &HeightField,
        composite2: &dyn CompositeShape,
        prediction: f64,
        manifolds: &mut Vec<ContactManifold<(), D>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
        flipped: bool,
    ) {
        let parts = Parts::<(u32, u32), D, HEIGHTFIELD_COMPOSITE>::begin(workspace, manifolds);
        let bvh2 = composite2.bvh();
        let ls_aabb2_1 = bvh2.root_aabb().transform_by(pos12).loosened(prediction);
        let deformable = composite2.is_deformable();
        heightfield1.map_elements_in_local_aabb(&ls_aabb2_1, &mut |leaf1, triangle1| {
            let triangle1 = &seamless(heightfield1, leaf1, triangle1);
            let ls_aabb1_2 = triangle1.compute_aabb(pos21).loosened(prediction);
            for leaf2 in bvh2.intersect_aabb(&ls_aabb1_2) {
                composite2.map_part_at(
                    leaf2,
                    &mut |part_pos2, part_shape2, normal_constraints2| {
                        let k = parts.manifold((leaf1, leaf2), manifolds, || {
                            let mut m = ContactManifold::new();
                            if flipped {
                                (m.subshape1, m.subshape2) = (leaf2, leaf1);
                                m.set_subshape_pos1(part_pos2.copied());
                            } else {
                                (m.subshape1, m.subshape2) = (leaf1, leaf2);
                                m.set_subshape_pos2(part_pos2.copied());
                            }
                            m
                        });
                        let manifold = &mut manifolds[k];
                        if deformable {
                            manifold.mark_shapes_deformed();
                        }
                        let triangle_normals = heightfield1.triangle_normal_constraints(leaf1);
                        let normal_constraints1 = triangle_normals
                            .as_ref()
                            .map(|p| p as &dyn NormalConstraints);
                        let pos = if flipped {
                            part_pos2.inv_mul(pos21)
                        } else {
                            part_pos2.prepend_to(pos12)
                        };
                        let (triangle, part) = (
                            (triangle1 as &dyn Shape, normal_constraints1),
                            (part_shape2, normal_constraints2),
                        );
                        self.in_order(flipped, &pos, triangle, part, prediction, manifold);
                    },
                );
            }
        });
        parts.end();
    }
}

/// Triangle `id` of a height field with the corners its neighbours share. Parry's walk over
/// the cells (`map_elements_in_local_aabb`) places a cell's far corners at `x0 + width`, its
/// neighbour's near ones at `-0.5 + width (j + 1)`: where the cells' width is not a power of two
/// they differ in the last bits, and the field has cracks a few ulps wide along its cell edges.
/// A ball whose centre was over one (10 x 10 cells of 10 m: x = 10 + 2e-15 m) met both
/// triangles' edges, had its normal turned up by the internal-edge fix, and its ray down to the
/// triangle missed both: no contact, and it fell through. `triangle_at_id` computes every
/// corner from its index, as the neighbour does.
fn seamless(heightfield: &HeightField, id: u32, walked: &Triangle) -> Triangle {
    heightfield.triangle_at_id(id).unwrap_or(*walked)
}

impl<D: Default + Copy + Send + Sync + 'static> PersistentQueryDispatcher<(), D>
    for Manifolds<'_, D>
{
    /// Parry's dispatch (`DefaultQueryDispatcher::contact_manifolds`): composite shapes' parts
    /// handed back to this dispatcher, voxels (Tenon makes none) to parry's.
    fn contact_manifolds(
        &self,
        pos12: &Pose,
        shape1: &dyn Shape,
        shape2: &dyn Shape,
        prediction: f64,
        manifolds: &mut Vec<ContactManifold<(), D>>,
        workspace: &mut Option<ContactManifoldsWorkspace>,
    ) -> Result<(), Unsupported> {
        let (composite1, composite2) = (shape1.as_composite_shape(), shape2.as_composite_shape());
        if let (Some(c1), Some(c2)) = (composite1, composite2) {
            self.composite_composite(pos12, (c1, c2), prediction, manifolds, workspace);
            return Ok(());
        }
        match (shape1.shape_type(), shape2.shape_type()) {
            (ShapeType::TriMesh, _) | (_, ShapeType::TriMesh) => {
                if let Some(mesh) = shape1.as_trimesh() {
                    self.trimesh_shape(
                        pos12, mesh, shape2, prediction, manifolds, workspace, false,
                    );
                } else if let Some(mesh) = shape2.as_trimesh() {
                    self.trimesh_shape(
                        &pos12.inverse(),
                        mesh,
                        shape1,
                        prediction,
                        manifolds,
                        workspace,
                        true,
                    );
                }
            }
            (ShapeType::Voxels, _) | (_, ShapeType::Voxels) => {
                return DefaultQueryDispatcher
                    .contact_manifolds(pos12, shape1, shape2, prediction, manifolds, workspace);
            }
            _ => {
                let inv = pos12.inverse();
                match (shape1.as_heightfield(), shape2.as_heightfield()) {
                    (Some(h1), _) => match composite2 {
                        Some(c2) => self.heightfield_composite(
                            (pos12, &inv),
                            h1,
                            c2,
                            prediction,
                            manifolds,
                            workspace,
                            false,
                        ),
                        None => self.heightfield_shape(
                            pos12, h1, shape2, prediction, manifolds, workspace, false,
                        ),
                    },
                    (None, Some(h2)) => match composite1 {
                        Some(c1) => self.heightfield_composite(
                            (&inv, pos12),
                            h2,
                            c1,
                            prediction,
                            manifolds,
                            workspace,
                            true,
                        ),
                        None => self.heightfield_shape(
                            &inv, h2, shape1, prediction, manifolds, workspace, true,
                        ),
                    },
                    (None, None) => {
                        if let Some(c1) = composite1 {
                            self.composite_shape(
                                pos12, c1, shape2, prediction, manifolds, workspace, false,
                            );
                        } else if let Some(c2) = composite2 {
                            self.composite_shape(
                                &inv, c2, shape1, prediction, manifolds, workspace, true,
                            );
                        } else {
                            if manifolds.is_empty() {
                                manifolds.push(ContactManifold::new());
                            }
                            return self.contact_manifold_convex_convex(
                                pos12,
                                shape1,
                                shape2,
                                None,
                                None,
                                prediction,
                                &mut manifolds[0],
                            );
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Parry's dispatch of two convex shapes (`DefaultQueryDispatcher::
    /// contact_manifold_convex_convex`): balls and capsule pairs update their points in place and
    /// go to parry's functions as they are; boxes on boxes and triangles go to parry's with their
    /// old points set aside; half-spaces and other polyhedral pairs to this module's copies.
    fn contact_manifold_convex_convex(
        &self,
        pos12: &Pose,
        shape1: &dyn Shape,
        shape2: &dyn Shape,
        normal_constraints1: Option<&dyn NormalConstraints>,
        normal_constraints2: Option<&dyn NormalConstraints>,
        prediction: f64,
        manifold: &mut ContactManifold<(), D>,
    ) -> Result<(), Unsupported> {
        use ShapeType::{Ball, Capsule, Cuboid, HalfSpace, Triangle};
        let default = |manifold: &mut ContactManifold<(), D>| {
            DefaultQueryDispatcher.contact_manifold_convex_convex(
                pos12,
                shape1,
                shape2,
                normal_constraints1,
                normal_constraints2,
                prediction,
                manifold,
            )
        };
        match (shape1.shape_type(), shape2.shape_type()) {
            (Ball, _) | (_, Ball) | (Capsule, Capsule) => default(manifold),
            // (parry's functions first try to move the old points along, in the pair's order
            // whichever way round they take it; given none, they clone an empty list)
            (Cuboid, Cuboid) | (Triangle, Cuboid) | (Cuboid, Triangle) => {
                if manifold.try_update_contacts(pos12) {
                    return Ok(());
                }
                self.recompute(manifold, |manifold, _| default(manifold))
            }
            (HalfSpace, _) => {
                let (Some(h), Some(pfm2)) =
                    (shape1.as_halfspace(), shape2.as_polygonal_feature_map())
                else {
                    return Err(Unsupported);
                };
                self.halfspace_pfm(pos12, h, pfm2, prediction, manifold, false);
                Ok(())
            }
            (_, HalfSpace) => {
                let (Some(pfm1), Some(h)) =
                    (shape1.as_polygonal_feature_map(), shape2.as_halfspace())
                else {
                    return Err(Unsupported);
                };
                self.halfspace_pfm(&pos12.inverse(), h, pfm1, prediction, manifold, true);
                Ok(())
            }
            _ => {
                let (Some(pfm1), Some(pfm2)) = (
                    shape1.as_polygonal_feature_map(),
                    shape2.as_polygonal_feature_map(),
                ) else {
                    return Err(Unsupported);
                };
                self.pfm_pfm(
                    pos12,
                    pfm1,
                    normal_constraints1,
                    pfm2,
                    normal_constraints2,
                    prediction,
                    manifold,
                );
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::Geometry;
    use crate::math::{Quat, Vec3};
    use parry3d_f64::shape::SharedShape;

    /// A point's carried data: a number given to each point after each call.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    struct Tag(u64);

    fn shapes() -> Vec<(&'static str, SharedShape, bool)> {
        let b = Geometry::Box {
            half_extents: Vec3::new(0.5, 0.4, 0.3),
        };
        let hull = Geometry::ConvexHull {
            points: vec![
                Vec3::new(-0.5, -0.5, -0.4),
                Vec3::new(0.6, -0.4, -0.4),
                Vec3::new(0.0, 0.5, -0.4),
                Vec3::new(-0.4, -0.5, 0.4),
                Vec3::new(0.5, -0.5, 0.5),
                Vec3::new(0.1, 0.4, 0.4),
            ],
        };
        let cylinder = Geometry::Cylinder {
            half_height: 0.4,
            radius: 0.3,
        };
        let ball = Geometry::Sphere { radius: 0.4 };
        let grid: Vec<f64> = (0..25).map(|k| 0.1 * ((k * 7 % 5) as f64 - 2.0)).collect();
        let list = [
            ("ball", ball.clone(), false),
            ("box", b.clone(), false),
            (
                "capsule",
                Geometry::Capsule {
                    half_height: 0.4,
                    radius: 0.2,
                },
                false,
            ),
            ("cylinder", cylinder.clone(), false),
            ("hull", hull.clone(), false),
            (
                "compound",
                Geometry::Compound {
                    parts: vec![
                        (Vec3::new(-0.4, 0.0, 0.0), Quat::identity(), b.clone()),
                        (Vec3::new(0.5, 0.1, 0.0), Quat::identity(), ball),
                        (Vec3::new(0.0, 0.5, 0.1), Quat::identity(), cylinder),
                        (Vec3::new(0.0, -0.5, 0.0), Quat::identity(), hull),
                    ],
                },
                false,
            ),
            (
                "half-space",
                Geometry::HalfSpace {
                    normal: Vec3::new(0.1, 0.0, 1.0),
                },
                true,
            ),
            (
                "mesh",
                Geometry::TriMesh {
                    vertices: vec![
                        Vec3::new(-3.0, -3.0, 0.0),
                        Vec3::new(3.0, -3.0, 0.2),
                        Vec3::new(3.0, 3.0, 0.0),
                        Vec3::new(-3.0, 3.0, -0.2),
                        Vec3::new(0.0, 0.0, 0.1),
                    ],
                    indices: vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]],
                },
                true,
            ),
            ("fine mesh", fine_mesh(), true),
            (
                "height field",
                Geometry::HeightField {
                    rows: 5,
                    cols: 5,
                    heights: grid,
                    scale: Vec3::new(6.0, 6.0, 1.0),
                },
                true,
            ),
        ];
        list.into_iter()
            .map(|(n, g, ground)| (n, crate::contact::detection::build(&g).unwrap().0, ground))
            .collect()
    }

    /// A 6 m x 6 m grid of 0.25 m cells, bumpy: the sliding shapes' triangles come into reach
    /// and leave it (the spare manifolds reused).
    fn fine_mesh() -> Geometry {
        let n = 24;
        let mut vertices = Vec::new();
        for i in 0..=n {
            for j in 0..=n {
                let z = 0.02 * ((i * 3 + j * 5) % 7) as f64;
                vertices.push(Vec3::new(-3.0 + 0.25 * i as f64, -3.0 + 0.25 * j as f64, z));
            }
        }
        let at = |i: usize, j: usize| (i * (n + 1) + j) as u32;
        let mut indices = Vec::new();
        for i in 0..n {
            for j in 0..n {
                indices.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
                indices.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
            }
        }
        Geometry::TriMesh { vertices, indices }
    }

    /// Compares two lists of manifolds field by field, bit for bit; returns their points.
    fn compare(a: &[ContactManifold<(), Tag>], b: &[ContactManifold<(), Tag>], at: &str) -> usize {
        assert_eq!(a.len(), b.len(), "{at}: manifolds");
        let mut points = 0;
        for (ma, mb) in a.iter().zip(b) {
            assert_eq!(
                (
                    ma.subshape1,
                    ma.subshape2,
                    ma.subshape_pos1(),
                    ma.subshape_pos2()
                ),
                (
                    mb.subshape1,
                    mb.subshape2,
                    mb.subshape_pos1(),
                    mb.subshape_pos2()
                ),
                "{at}: parts"
            );
            assert_eq!(
                (ma.local_n1, ma.local_n2),
                (mb.local_n1, mb.local_n2),
                "{at}"
            );
            assert_eq!(ma.points.len(), mb.points.len(), "{at}: points");
            for (pa, pb) in ma.points.iter().zip(&mb.points) {
                assert_eq!(
                    (pa.local_p1, pa.local_p2),
                    (pb.local_p1, pb.local_p2),
                    "{at}"
                );
                assert_eq!(pa.dist.to_bits(), pb.dist.to_bits(), "{at}");
                assert_eq!(
                    (pa.fid1, pa.fid2, pa.data),
                    (pb.fid1, pb.fid2, pb.data),
                    "{at}"
                );
            }
            points += ma.points.len();
        }
        points
    }

    /// Every pair of shapes Tenon makes, the second descending onto the first, sliding and
    /// turning on it, lifting off and coming back: parry's dispatcher and this module's give the
    /// same manifolds, points, normals and carried data, bit for bit, at every call.
    #[test]
    fn manifolds_equal_parrys_bit_for_bit() {
        let mut scratch = Scratch::<Tag>::default();
        let shapes = shapes();
        let mut tag = 0;
        for (n1, s1, ground1) in &shapes {
            for (n2, s2, ground2) in &shapes {
                if *ground1 && *ground2 {
                    continue; // (never both on static bodies: never detected)
                }
                let (mut ma, mut wa, mut mb, mut wb) = (Vec::new(), None, Vec::new(), None);
                let mut points = 0;
                for k in 0..90 {
                    let t = k as f64 / 30.0;
                    // down from 1.5 m to 0.15 m in the first second, then sliding along x
                    // while turning, lifted in the third
                    let z = if t < 1.0 {
                        1.5 - 1.35 * t
                    } else {
                        0.15 + 0.6 * (t - 2.0).max(0.0)
                    };
                    let x = 0.4 * (t - 1.0).max(0.0);
                    let q = Quat::from_euler_angles(0.2 * t, 0.1 * t, 1.3 * t);
                    let pos12 = crate::contact::detection::ppose(&Vec3::new(x, 0.1, z), &q);
                    let ra = DefaultQueryDispatcher
                        .contact_manifolds(&pos12, &**s1, &**s2, 0.05, &mut ma, &mut wa);
                    let rb = Manifolds::new(&mut scratch)
                        .contact_manifolds(&pos12, &**s1, &**s2, 0.05, &mut mb, &mut wb);
                    assert_eq!(ra.is_ok(), rb.is_ok(), "{n1}/{n2}");
                    points += compare(&ma, &mb, &format!("{n1}/{n2} at call {k}"));
                    for (a, b) in ma.iter_mut().zip(&mut mb) {
                        for (pa, pb) in a.points.iter_mut().zip(&mut b.points) {
                            tag += 1;
                            (pa.data, pb.data) = (Tag(tag), Tag(tag));
                        }
                    }
                }
                assert!(points >= 20, "{n1}/{n2}: {points} points in 90 calls");
            }
        }
    }
}
