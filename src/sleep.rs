//! Sleep: bodies at rest are held still, at no cost, until something wakes them (the sleeping
//! islands of Box2D, Jolt and Rapier).
//!
//! A group of dynamic bodies (those its joints and touching contacts join) falls asleep when
//! every body in it has moved slower than the thresholds of [`SleepSettings`] for
//! [`SleepSettings::time`], none of them driven by a velocity motor or a spring still on its
//! way (see [`crate::Motor::damping`]). Its velocities are zeroed and, frame after frame, its bodies are
//! held static: the solver leaves its islands out and the contacts see immovable bodies, whose
//! pairs with each other are not detected (they stay touching for the contact events).
//!
//! A sleeping group wakes whole at the start of a frame step when a moving body (dynamic and
//! faster than the thresholds or pushed by a force, or kinematic with a velocity), or one the
//! caller changed, can reach one of its shapes within the step (the broad phase with the
//! speculative margin), and when the caller changes one of its bodies, or a joint, shape or body
//! touching it (see [`World::set_body_awake`]). A body the caller changes wakes at once with its
//! group, what touches it at the start of the next step (one pass for all the caller's
//! changes). Sleep trades exactness for time: a sleeping body does not feel what
//! changes around it until it is woken, so it is off by default.

use crate::articulation::find;
use crate::body::BodyKind;
use crate::contact::impulse::WORLD;
use crate::error::{Error, ErrorKind, Result};
use crate::joint::JointKind;
use crate::world::{BodyHandle, World};

/// When bodies fall asleep ([`World::set_sleep_settings`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SleepSettings {
    /// Groups of bodies at rest fall asleep. Default false: every body is simulated at every
    /// step. (Bodies put to sleep by [`World::set_body_awake`] sleep either way.)
    pub enabled: bool,
    /// A body moving faster than this (m/s, its centre of mass) is not at rest. Default 0.01.
    pub linear_velocity: f64,
    /// A body turning faster than this (rad/s) is not at rest. Default 0.035 (2 degrees/s).
    pub angular_velocity: f64,
    /// How long (s) every body of a group must have been at rest before the group falls
    /// asleep. Default 0.5.
    pub time: f64,
}

impl Default for SleepSettings {
    fn default() -> Self {
        SleepSettings {
            enabled: false,
            linear_velocity: 0.01,
            angular_velocity: 0.035,
            time: 0.5,
        }
    }
}

impl SleepSettings {
    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<()> {
        let fields = [self.linear_velocity, self.angular_velocity, self.time];
        if fields.iter().any(|v| !v.is_finite()) {
            return Err(Error::new(
                ErrorKind::NonFinite,
                format!(
                    "sleep velocities and time must be finite, got {} m/s, {} rad/s and {} s",
                    self.linear_velocity, self.angular_velocity, self.time
                ),
            ));
        }
        let ok = |v: f64| v >= 0.0;
        if !(ok(self.linear_velocity) && ok(self.angular_velocity)) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "sleep velocities must be finite and >= 0, got {} m/s and {} rad/s",
                    self.linear_velocity, self.angular_velocity
                ),
            ));
        }
        if !(self.time.is_finite() && self.time > 0.0) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("sleep time must be finite and > 0, got {} s", self.time),
            ));
        }
        Ok(())
    }
}

reusing_clone! {
    /// The world's sleep state and scratch (no allocation per step once they are large enough).
    #[derive(Default)]
    pub(crate) struct Sleep {
        pub settings: SleepSettings,
        /// Some body may sleep (false: none does; set when one falls asleep).
        any: bool,
        /// Bodies the caller changed since the last step (while some body may sleep): what they
        /// touch and reach wakes at the next step.
        changed: Vec<u32>,
        /// The next group number (0: none).
        next_group: u64,
        /// Union-find over body slots, and per root: whether every awake body is ready to sleep,
        /// whether it has an awake body, and the group it falls asleep as.
        parent: Vec<u32>,
        ready: Vec<bool>,
        awake: Vec<bool>,
        group: Vec<u64>,
        /// (group, slot) of the sleeping bodies, sorted: to join each group again and to find a
        /// group's bodies when it wakes. Every sleeping body has its entry; entries of bodies
        /// woken or destroyed since it was rebuilt may stay (checked when read).
        members: Vec<(u64, u32)>,
        /// Groups to wake.
        woken: Vec<u64>,
        /// `parent` and `comp_*` describe the groups the joints and touching contacts make now:
        /// cleared by whatever changes joints, contacts, kinds, bodies or sleeping groups
        /// ([`Sleep::forget_groups`]), so that putting bodies to sleep one by one costs each call
        /// its group, not a pass over the world.
        groups_valid: bool,
        /// The bodies of each union-find root `r`: `comp_slots[comp_start[r]..comp_start[r + 1]]`,
        /// in slot order.
        comp_start: Vec<u32>,
        comp_slots: Vec<u32>,
        /// Scratch of [`World::index_groups`]: each root's next free place in `comp_slots`.
        comp_next: Vec<u32>,
    }
}

impl Sleep {
    /// The groups changed (a joint, contact, body, kind or sleeping group): the next
    /// [`World::set_body_awake`] joins them again.
    pub(crate) fn forget_groups(&mut self) {
        self.groups_valid = false;
    }
}

impl World {
    /// The sleep settings.
    pub fn sleep_settings(&self) -> &SleepSettings {
        &self.sleep.settings
    }

    /// Replaces the sleep settings. Turning sleep off wakes every sleeping body. Errors: a
    /// field out of its range (nothing changes).
    pub fn set_sleep_settings(&mut self, s: SleepSettings) -> Result<()> {
        s.validate()?;
        if !s.enabled {
            self.wake_all();
        } else if !self.sleep.settings.enabled {
            // (the time at rest counts from now)
            for (_, b) in self.bodies.iter_mut() {
                b.sleep_time = 0.0;
            }
        }
        self.sleep.settings = s;
        Ok(())
    }

    /// Wakes a body (`true`) with the group it sleeps with and what it touches, or puts it to
    /// sleep now (`false`) with the dynamic bodies its joints and touching contacts join (those
    /// of the last step), velocities zeroed (as a level loads its piles asleep: the first such
    /// call after a step or a change of bodies, joints or shapes costs a pass over the bodies,
    /// joints and touching pairs, the next ones only their group). A sleeping body also wakes when the
    /// caller sets its pose, velocity, mass properties, gravity scale, kind or split, applies a
    /// force, torque or impulse, registers a contact on it, creates or destroys a joint or
    /// shape on it or changes a shape's material or filter, or changes a joint's motor or
    /// limits: the body and its group at once, the bodies touching it or jointed to it at the
    /// start of the next step. Destroying a body wakes what it touched at once. Changing the
    /// world's gravity or contact settings wakes every body. Errors: a stale handle; putting a
    /// static or kinematic body to sleep, or one whose group holds a body not allowed to sleep
    /// (nothing changes).
    pub fn set_body_awake(&mut self, h: BodyHandle, awake: bool) -> Result<()> {
        let b = self.body(h)?;
        if awake {
            self.wake_around(h.index);
            return Ok(());
        }
        if b.kind != BodyKind::Dynamic {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "only a dynamic body can sleep",
            ));
        }
        if !self.sleep.groups_valid {
            self.join_groups();
            self.index_groups();
        }
        let s = &mut self.sleep;
        let root = find(&mut s.parent, h.index) as usize;
        let group = &s.comp_slots[s.comp_start[root] as usize..s.comp_start[root + 1] as usize];
        if group
            .iter()
            .any(|&slot| !self.bodies.slot(slot).sleep_allowed)
        {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "the body's group holds a body not allowed to sleep",
            ));
        }
        // (entries of bodies woken or destroyed since the last rebuild, and of groups put to
        // sleep again, pile up while the caller puts bodies to sleep without a step between)
        if s.members.len() > 2 * self.bodies.len() + 64 {
            list_sleepers(&mut s.members, &self.bodies);
        }
        s.next_group += 1;
        let g = s.next_group;
        for &slot in group {
            let b = self.bodies.slot_mut(slot);
            if b.kind == BodyKind::Dynamic {
                fall_asleep(&mut s.any, b, g);
                // (the newest group sorts last; its bodies in slot order)
                s.members.push((g, slot));
            }
        }
        Ok(())
    }

    /// Whether a body may fall asleep (default true). Not allowed, it wakes (with its group)
    /// and stays awake, and so does every body its joints and contacts join to it. Errors: a
    /// stale handle.
    pub fn set_body_sleep_allowed(&mut self, h: BodyHandle, allowed: bool) -> Result<()> {
        self.body(h)?;
        self.bodies.slot_mut(h.index).sleep_allowed = allowed;
        if !allowed {
            self.wake_around(h.index);
        }
        Ok(())
    }

    /// Number of sleeping bodies.
    pub fn sleeping_body_count(&self) -> usize {
        self.bodies.iter().filter(|(_, b)| b.asleep).count()
    }

    /// Wakes now the group of body slot `slot`, those of the bodies its joints join and those of
    /// the bodies it touches (and the groups waiting for the next step).
    pub(crate) fn wake_around(&mut self, slot: u32) {
        if !self.sleep.any {
            return;
        }
        let s = &mut self.sleep;
        let group = |slot: u32| sleeping_group(&self.bodies, slot);
        s.woken.extend(group(slot));
        for &j in &self.body_joints[slot as usize] {
            let j = self.joints.slot(j);
            s.woken.extend(j.body_a.and_then(group));
            s.woken.extend(group(j.body_b));
        }
        for &(a, b) in self.contacts.touching_pairs() {
            if a == slot {
                s.woken.extend(group(b));
            } else if b == slot && a != WORLD {
                s.woken.extend(group(a));
            }
        }
        self.wake_groups();
    }

    /// Wakes body slot `slot` with its group now if it sleeps (its group's bodies found by a
    /// binary search of the sleeping ones). Forces, impulses and registered contacts: the body moves, and moving, it
    /// wakes what it reaches at the next step.
    pub(crate) fn wake_body(&mut self, slot: u32) {
        let b = self.bodies.slot(slot);
        if b.asleep {
            self.sleep.woken.push(b.sleep_group);
            self.wake_groups();
        }
    }

    /// The caller changed body slot `slot` (or its shapes, or a joint on it): it wakes now with
    /// its group, and at the next step the bodies it touches or is jointed to and what it can
    /// reach wake.
    pub(crate) fn note_change(&mut self, slot: u32) {
        let s = &mut self.sleep;
        if !(s.any || s.settings.enabled) {
            return;
        }
        // (kept to about one entry per body however often the caller changes them between
        // steps)
        if s.changed.last() != Some(&slot) {
            s.changed.push(slot);
            if s.changed.len() > 2 * self.bodies.capacity_slots() {
                s.changed.sort_unstable();
                s.changed.dedup();
            }
        }
        self.wake_body(slot);
    }

    /// [`World::note_change`] for both bodies of joint slot `j`.
    pub(crate) fn note_joint_change(&mut self, j: u32) {
        let j = self.joints.slot(j);
        let (a, b) = (j.body_a, j.body_b);
        for slot in a.into_iter().chain([b]) {
            self.note_change(slot);
        }
    }

    /// Wakes every sleeping body.
    pub(crate) fn wake_all(&mut self) {
        for (_, b) in self.bodies.iter_mut() {
            wake(b);
        }
        self.sleep.forget_groups();
    }

    /// Wakes the groups listed in `sleep.woken`: each group's bodies found in `members`.
    fn wake_groups(&mut self) {
        let s = &mut self.sleep;
        if s.woken.is_empty() {
            return;
        }
        s.woken.sort_unstable();
        s.woken.dedup();
        for &g in &s.woken {
            let first = s.members.partition_point(|&(group, _)| group < g);
            for &(group, slot) in &s.members[first..] {
                if group != g {
                    break;
                }
                // (an entry may be left from a body since woken, destroyed, or put to sleep
                // again in another group)
                if let Some(b) = self.bodies.live_slot_mut(slot)
                    && b.asleep
                    && b.sleep_group == g
                {
                    wake(b);
                }
            }
        }
        s.woken.clear();
        s.forget_groups();
    }

    /// At the start of a frame step `h`: wakes the groups of the bodies woken since the last
    /// step, those touching an awake dynamic body or one the caller changed, those jointed to a
    /// changed, moving kinematic or awake dynamic body or on a joint driven by a velocity motor,
    /// and those a moving or changed body can reach
    /// in the frame; holds the others static for the frame (the islands built first, from the
    /// bodies' own kinds). Does nothing while no body sleeps.
    pub(crate) fn hold_sleepers(&mut self, h: f64) {
        if !self.sleep.any {
            self.sleep.changed.clear();
            return;
        }
        let s = &mut self.sleep;
        if !self.bodies.iter().any(|(_, b)| b.asleep) {
            s.any = false;
            s.changed.clear();
            s.woken.clear();
            return;
        }
        let bodies = &self.bodies;
        let group = |slot: u32| sleeping_group(bodies, slot);
        let (lin, ang) = (s.settings.linear_velocity, s.settings.angular_velocity);
        let zero = crate::math::Vec3::zeros();
        let moving = |b: &crate::Body| match b.kind {
            BodyKind::Dynamic => {
                !b.asleep
                    && (b.linear_velocity.norm() > lin
                        || b.angular_velocity.norm() > ang
                        || b.force != zero
                        || b.torque != zero)
            }
            BodyKind::Kinematic => kinematic_moving(b),
            BodyKind::Static => false,
        };
        // what touches an awake dynamic body (however slowly it moves: a contact joins the two
        // groups, which then fall asleep together) or a body the caller changed
        s.changed.sort_unstable();
        s.changed.dedup();
        let changed = |slot: u32| s.changed.binary_search(&slot).is_ok();
        let awake = |slot: u32| {
            let b = bodies.slot(slot);
            b.kind == BodyKind::Dynamic && !b.asleep
        };
        for &(a, b) in self.contacts.touching_pairs() {
            if a == WORLD {
                continue;
            }
            if changed(a) || awake(a) {
                s.woken.extend(group(b));
            }
            if changed(b) || awake(b) {
                s.woken.extend(group(a));
            }
        }
        // a joint between a sleeping body and a changed one, an awake dynamic one or a moving
        // kinematic one (whatever made it so: an island is never partly asleep)
        for (_, j) in self.joints.iter() {
            // (a joint driven by a velocity motor or a damper at a speed keeps its bodies awake,
            // even put to sleep)
            if j.motor.drives_at_speed() {
                s.woken.extend(j.body_a.and_then(group));
                s.woken.extend(group(j.body_b));
            }
            let Some(a) = j.body_a else {
                // (jointed to the world: the world does not move)
                continue;
            };
            let (ba, bb) = (bodies.slot(a), bodies.slot(j.body_b));
            let wakes = |slot: u32, b: &crate::Body| {
                changed(slot) || moving(b) || (b.kind == BodyKind::Dynamic && !b.asleep)
            };
            if wakes(a, ba) {
                s.woken.extend(group(j.body_b));
            }
            if wakes(j.body_b, bb) {
                s.woken.extend(group(a));
            }
        }
        // what a moving or changed body can reach in the frame (no broad phase when nothing
        // moves: a world asleep)
        let wakers = !s.changed.is_empty() || bodies.iter().any(|(_, b)| moving(b));
        if wakers && self.contacts.detector.shapes.len() > 0 {
            let margin = self.contacts.settings.margin;
            let g = self.settings.gravity;
            self.contacts.detector.broad_phase(bodies, &g, h, margin);
            let (pairs, shapes) = (
                self.contacts.detector.broad_pairs(),
                &self.contacts.detector.shapes,
            );
            for &(i, j) in pairs {
                let (s1, s2) = (shapes.slot(i), shapes.slot(j));
                // (a sensor touches nothing: it neither wakes nor is woken)
                if s1.body == s2.body || s1.sensor || s2.sensor || !s1.filter.allows(&s2.filter) {
                    continue;
                }
                if changed(s2.body) || moving(bodies.slot(s2.body)) {
                    s.woken.extend(group(s1.body));
                }
                if changed(s1.body) || moving(bodies.slot(s1.body)) {
                    s.woken.extend(group(s2.body));
                }
            }
        }
        s.changed.clear();
        self.wake_groups();
        self.solver.prepare_topology(&self.bodies, &self.joints);
        for (_, b) in self.bodies.iter_mut() {
            if b.asleep {
                b.kind = BodyKind::Static;
            }
        }
        self.solver.mark_asleep(&self.bodies);
    }

    /// At the end of a frame step: the bodies held static are dynamic again (nothing wakes or
    /// falls asleep within a step: they are the sleeping bodies).
    pub(crate) fn release_sleepers(&mut self) {
        if !self.sleep.any {
            return;
        }
        for (_, b) in self.bodies.iter_mut() {
            if b.asleep {
                b.kind = BodyKind::Dynamic;
            }
        }
    }

    /// At the end of a frame step `h` (sleepers released): counts how long each awake dynamic
    /// body has been at rest, and puts to sleep the groups whose every awake body has been at
    /// rest for the settings' time (a group touching a sleeping one joins it). Returns whether
    /// a body fell asleep.
    pub(crate) fn fall_asleep(&mut self, h: f64) -> bool {
        let st = self.sleep.settings;
        if !st.enabled {
            return false;
        }
        let mut any = false;
        for (_, b) in self.bodies.iter_mut() {
            if b.kind != BodyKind::Dynamic || b.asleep {
                continue;
            }
            let at_rest = b.linear_velocity.norm() <= st.linear_velocity
                && b.angular_velocity.norm() <= st.angular_velocity;
            b.sleep_time = if at_rest && b.sleep_allowed {
                b.sleep_time + h
            } else {
                0.0
            };
            any |= b.sleep_time >= st.time;
        }
        if !any {
            return false;
        }
        // what a moving kinematic body touches or is jointed to, what a registered contact
        // holds, and a joint driven by a velocity motor or a creeping spring stay awake
        let moving = |b: &crate::Body| b.kind == BodyKind::Kinematic && kinematic_moving(b);
        for &(a, b) in self.contacts.touching_pairs() {
            if (a != WORLD && moving(self.bodies.slot(a))) || moving(self.bodies.slot(b)) {
                keep_awake(&mut self.bodies, a, b);
            }
        }
        for (a, b) in self.contacts.registered_pairs() {
            keep_awake(&mut self.bodies, a, b);
        }
        // a joint to a moving kinematic body, driven by a velocity motor (however slowly:
        // the coordinate must advance at its speed), or a spring still creeping to its rest
        let creep = |j: &crate::world::Joint| {
            let v = match j.model.kind {
                JointKind::Hinge => st.angular_velocity,
                _ => st.linear_velocity,
            };
            j.spring_creep() > v * st.time
        };
        for (_, j) in self.joints.iter() {
            let a = j.body_a.unwrap_or(WORLD);
            let kinematic =
                (a != WORLD && moving(self.bodies.slot(a))) || moving(self.bodies.slot(j.body_b));
            let driven = j.motor.drives_at_speed() || creep(j);
            if kinematic || driven {
                keep_awake(&mut self.bodies, a, j.body_b);
            }
        }
        self.join_groups();
        let s = &mut self.sleep;
        let n = self.bodies.capacity_slots();
        s.ready.clear();
        s.ready.resize(n, true);
        s.awake.clear();
        s.awake.resize(n, false);
        s.group.clear();
        s.group.resize(n, 0);
        for (slot, b) in self.bodies.iter() {
            if b.kind != BodyKind::Dynamic || b.asleep {
                continue;
            }
            let r = find(&mut s.parent, slot) as usize;
            s.awake[r] = true;
            s.ready[r] &= b.sleep_time >= st.time;
        }
        let mut fell = false;
        for (slot, b) in self.bodies.iter_mut() {
            if b.kind != BodyKind::Dynamic {
                continue;
            }
            let r = find(&mut s.parent, slot) as usize;
            if s.awake[r] && s.ready[r] {
                if s.group[r] == 0 {
                    s.next_group += 1;
                    s.group[r] = s.next_group;
                }
                fall_asleep(&mut s.any, b, s.group[r]);
                fell = true;
            }
        }
        // (sleeping groups joined by new sleepers took their new group)
        list_sleepers(&mut s.members, &self.bodies);
        s.forget_groups();
        fell
    }

    /// Lists the bodies of each union-find root after [`World::join_groups`] (a counting sort
    /// of the live bodies by root), and marks the groups valid.
    fn index_groups(&mut self) {
        let s = &mut self.sleep;
        let n = self.bodies.capacity_slots();
        s.comp_start.clear();
        s.comp_start.resize(n + 1, 0);
        for (slot, _) in self.bodies.iter() {
            let r = find(&mut s.parent, slot) as usize;
            s.comp_start[r + 1] += 1;
        }
        for r in 0..n {
            s.comp_start[r + 1] += s.comp_start[r];
        }
        s.comp_slots.clear();
        s.comp_slots.resize(self.bodies.len(), 0);
        s.comp_next.clear();
        s.comp_next.extend_from_slice(&s.comp_start[..n]);
        for (slot, _) in self.bodies.iter() {
            let r = find(&mut s.parent, slot) as usize;
            s.comp_slots[s.comp_next[r] as usize] = slot;
            s.comp_next[r] += 1;
        }
        s.groups_valid = true;
    }

    /// Union-find (`sleep.parent`) over the dynamic bodies that joints and touching contacts
    /// join, and over each sleeping group.
    fn join_groups(&mut self) {
        let s = &mut self.sleep;
        let n = self.bodies.capacity_slots();
        s.parent.clear();
        s.parent.extend(0..n as u32);
        let dynamic = |slot: u32| slot != WORLD && self.bodies.slot(slot).kind == BodyKind::Dynamic;
        let union = |parent: &mut Vec<u32>, a: u32, b: u32| {
            let (ra, rb) = (find(parent, a), find(parent, b));
            if ra != rb {
                parent[ra.max(rb) as usize] = ra.min(rb);
            }
        };
        for (_, j) in self.joints.iter() {
            if let Some(a) = j.body_a
                && dynamic(a)
                && dynamic(j.body_b)
            {
                union(&mut s.parent, a, j.body_b);
            }
        }
        for &(a, b) in self.contacts.touching_pairs() {
            if dynamic(a) && dynamic(b) {
                union(&mut s.parent, a, b);
            }
        }
        list_sleepers(&mut s.members, &self.bodies);
        for k in 1..s.members.len() {
            let ((g0, a), (g1, b)) = (s.members[k - 1], s.members[k]);
            if g0 == g1 {
                union(&mut s.parent, a, b);
            }
        }
    }
}

/// Lists (group, slot) of every sleeping body in `members`, sorted.
fn list_sleepers(members: &mut Vec<(u64, u32)>, bodies: &crate::arena::Arena<crate::Body>) {
    members.clear();
    members.extend(
        (bodies.iter())
            .filter(|(_, b)| b.asleep)
            .map(|(slot, b)| (b.sleep_group, slot)),
    );
    members.sort_unstable();
}

/// The group body slot `slot` sleeps with, if it sleeps.
fn sleeping_group(bodies: &crate::arena::Arena<crate::Body>, slot: u32) -> Option<u64> {
    let b = bodies.slot(slot);
    b.asleep.then_some(b.sleep_group)
}

/// A kinematic body with a velocity (it moves whatever touches or hangs from it).
fn kinematic_moving(b: &crate::Body) -> bool {
    b.linear_velocity != crate::math::Vec3::zeros()
        || b.angular_velocity != crate::math::Vec3::zeros()
}

/// Restarts the time at rest of both bodies of a pair.
fn keep_awake(bodies: &mut crate::arena::Arena<crate::Body>, a: u32, b: u32) {
    for slot in [a, b] {
        if slot != WORLD {
            bodies.slot_mut(slot).sleep_time = 0.0;
        }
    }
}

/// Puts a body to sleep in group `g`.
fn fall_asleep(any: &mut bool, b: &mut crate::Body, g: u64) {
    *any = true;
    b.asleep = true;
    b.sleep_group = g;
    b.linear_velocity = crate::math::Vec3::zeros();
    b.angular_velocity = crate::math::Vec3::zeros();
}

/// Wakes a body, its time at rest from zero.
fn wake(b: &mut crate::Body) {
    if b.asleep {
        b.asleep = false;
        b.sleep_time = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use crate::contact::Geometry;
    use crate::*;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Every sleeping body is listed with its group (waking a group finds all of it), and after
    /// a step (`stepped`) no joint joins a sleeping body to an awake dynamic one (between steps
    /// it may: a body made dynamic wakes its neighbours at the next step).
    fn check_invariants(w: &World, stepped: bool) {
        for (slot, b) in w.bodies.iter() {
            if b.asleep {
                assert!(
                    w.sleep
                        .members
                        .binary_search(&(b.sleep_group, slot))
                        .is_ok(),
                    "sleeping body {slot} not listed"
                );
            }
        }
        let awake_dynamic = |slot: u32| {
            let b = w.bodies.slot(slot);
            b.kind == BodyKind::Dynamic && !b.asleep
        };
        for (_, j) in w.joints.iter().filter(|_| stepped) {
            if let Some(a) = j.body_a {
                let (ba, bb) = (w.bodies.slot(a), w.bodies.slot(j.body_b));
                assert!(!(ba.asleep && awake_dynamic(j.body_b)));
                assert!(!(bb.asleep && awake_dynamic(a)));
            }
        }
    }

    /// The random worlds' start: sleep on after `time` s at rest, the ground plane z = 0, a loose
    /// tolerance and no substeps (the tests are about groups, and jointed heaps of overlapping
    /// cubes may otherwise split frames finely).
    fn random_world_start(time: f64) -> World {
        let mut w = World::default();
        w.set_settings(WorldSettings {
            eps_p: 1e-6,
            max_iterations: 10,
            max_substeps: 1,
            ..Default::default()
        })
        .unwrap();
        w.set_sleep_settings(SleepSettings {
            enabled: true,
            time,
            ..Default::default()
        })
        .unwrap();
        crate::scenes::floor(&mut w, 0.0, Default::default());
        w
    }

    /// Each body's slot, sleep state, group and position bits.
    /// A dynamic body on top of stack `cell` of a square grid of `stacks.len()` stacks
    /// `spacing` apart (1.001 m per level: room for a unit cube).
    fn stacked_body(w: &mut World, stacks: &mut [u32], cell: usize, spacing: f64) -> BodyHandle {
        let side = stacks.len().isqrt();
        stacks[cell] += 1;
        let (x, y) = (
            (cell % side) as f64 * spacing,
            (cell / side) as f64 * spacing,
        );
        let position = Vec3::new(x, y, stacks[cell] as f64 * 1.001 - 0.5);
        w.create_body(&BodyDesc {
            position,
            ..Default::default()
        })
        .unwrap()
    }

    fn sleep_state(w: &World) -> Vec<(u32, bool, u64, [u64; 3])> {
        (w.bodies.iter())
            .map(|(slot, b)| {
                let p = b.position;
                let bits = [p.x, p.y, p.z].map(f64::to_bits);
                (slot, b.asleep, b.sleep_group, bits)
            })
            .collect()
    }

    /// A random world (bodies with and without shapes near each other, joints, steps with
    /// sleep on, bodies put to sleep, woken, pushed, destroyed, joints destroyed, kinds
    /// changed) after 300 operations: each body's sleep state, group and pose bits. `anew`: the
    /// groups are joined anew at every operation instead of kept between calls.
    fn random_world(seed: u64, anew: bool) -> Vec<(u32, bool, u64, [u64; 3])> {
        let mut rng = Rng(seed * 7919);
        let mut w = random_world_start(0.1);
        let mut bodies: Vec<BodyHandle> = Vec::new();
        let mut joints: Vec<JointHandle> = Vec::new();
        let mut stacks = [0u32; 16];
        for op in 0..300 {
            if anew {
                w.sleep.forget_groups();
            }
            let mut stepped = false;
            match rng.next(12) {
                0..=2 => {
                    // (on a 4 x 4 grid of 1.1 m, cubes of 1 m: stacked where a cell is taken;
                    // joints join the stacks)
                    let b = stacked_body(&mut w, &mut stacks, rng.next(16), 1.1);
                    if rng.next(3) > 0 {
                        let cube = Geometry::Box {
                            half_extents: Vec3::new(0.5, 0.5, 0.5),
                        };
                        w.create_shape(b, &ShapeDesc::new(cube)).unwrap();
                    }
                    bodies.push(b);
                }
                3 if bodies.len() >= 2 => {
                    let (a, b) = (rng.next(bodies.len()), rng.next(bodies.len()));
                    if a != b {
                        // (at the midpoint of the two: the joint holds where they are)
                        let mut d = JointDesc::new(JointKind::Ball, Some(bodies[a]), bodies[b]);
                        let (pa, pb) = (w.body(bodies[a]).unwrap(), w.body(bodies[b]).unwrap());
                        let mid = 0.5 * (pa.position() + pb.position());
                        w.set_joint_frames_world(&mut d, mid, Vec3::x()).unwrap();
                        // (two kinematic bodies cannot be jointed)
                        if let Ok(j) = w.create_joint(&d) {
                            joints.push(j);
                        }
                    }
                }
                4..=5 => {
                    w.step(1.0 / 60.0).unwrap();
                    stepped = true;
                }
                6..=7 if !bodies.is_empty() => {
                    let b = bodies[rng.next(bodies.len())];
                    let _ = w.set_body_awake(b, rng.next(4) == 0);
                }
                8 if !bodies.is_empty() => {
                    let b = bodies[rng.next(bodies.len())];
                    let p = w.body(b).unwrap().position();
                    w.apply_impulse(b, Vec3::new(0.0, 0.0, 0.01), p).unwrap();
                }
                9 if !bodies.is_empty() && op % 3 == 0 => {
                    let b = bodies.swap_remove(rng.next(bodies.len()));
                    w.destroy_body(b).unwrap();
                    joints.retain(|&j| w.is_joint_valid(j));
                }
                10 if !joints.is_empty() => {
                    let j = joints.swap_remove(rng.next(joints.len()));
                    w.destroy_joint(j).unwrap();
                }
                11 if !bodies.is_empty() => {
                    let b = bodies[rng.next(bodies.len())];
                    let kind = [BodyKind::Dynamic, BodyKind::Kinematic][rng.next(2)];
                    // (a kinematic body jointed to a kinematic body stays dynamic)
                    let _ = w.set_body_kind(b, kind);
                }
                _ => {}
            }
            check_invariants(&w, stepped);
        }
        assert!(w.sleeping_body_count() > 0, "seed {seed}: nothing sleeps");
        sleep_state(&w)
    }

    /// As `random_world`, with more of the paths that change groups or sleep: bursts of sleep
    /// calls, filters, registered contacts, splits, sleep allowed, wake all, kinematic targets,
    /// static kinds, shapes created and destroyed, slots reused.
    fn random_world2(seed: u64, anew: bool) -> Vec<(u32, bool, u64, [u64; 3])> {
        let mut rng = Rng(seed * 104729 + 17);
        let mut w = random_world_start(0.05);
        let mut bodies: Vec<BodyHandle> = Vec::new();
        let mut shapes: Vec<ShapeHandle> = Vec::new();
        let mut joints: Vec<JointHandle> = Vec::new();
        let mut stacks = [0u32; 9];
        for op in 0..400 {
            if anew {
                w.sleep.forget_groups();
            }
            let mut stepped = false;
            let pick = |rng: &mut Rng, v: &Vec<BodyHandle>| v[rng.next(v.len())];
            match rng.next(20) {
                0..=3 => {
                    let b = stacked_body(&mut w, &mut stacks, rng.next(9), 1.05);
                    let cube = Geometry::Box {
                        half_extents: Vec3::new(0.5, 0.5, 0.5),
                    };
                    shapes.push(w.create_shape(b, &ShapeDesc::new(cube)).unwrap());
                    bodies.push(b);
                }
                4 if bodies.len() >= 2 => {
                    let (a, b) = (pick(&mut rng, &bodies), pick(&mut rng, &bodies));
                    if a != b {
                        let mut d = JointDesc::new(JointKind::Ball, Some(a), b);
                        let mid =
                            0.5 * (w.body(a).unwrap().position() + w.body(b).unwrap().position());
                        w.set_joint_frames_world(&mut d, mid, Vec3::x()).unwrap();
                        if let Ok(j) = w.create_joint(&d) {
                            joints.push(j);
                        }
                    }
                }
                5..=7 => {
                    w.step(1.0 / 60.0).unwrap();
                    stepped = true;
                }
                8..=9 if !bodies.is_empty() => {
                    // a burst of sleep calls, no step between (the kept groups' use)
                    for _ in 0..1 + rng.next(5) {
                        let b = pick(&mut rng, &bodies);
                        let _ = w.set_body_awake(b, false);
                        check_invariants(&w, false);
                    }
                }
                10 if !bodies.is_empty() => {
                    let b = pick(&mut rng, &bodies);
                    let _ = w.set_body_awake(b, true);
                }
                11 if !shapes.is_empty() => {
                    let s = shapes[rng.next(shapes.len())];
                    let f = CollisionFilter {
                        group: 1 << rng.next(2),
                        mask: [u32::MAX, 1, 2][rng.next(3)],
                    };
                    let _ = w.set_shape_filter(s, f);
                }
                12 if !bodies.is_empty() => {
                    let b = pick(&mut rng, &bodies);
                    let p = w.body(b).unwrap().position();
                    let _ = w.register_contact(&ContactDesc {
                        body_a: None,
                        body_b: b,
                        point: p - Vec3::new(0.0, 0.0, 0.5),
                        normal: Vec3::z(),
                        depth: 0.0,
                        material: Default::default(),
                    });
                }
                13 if !bodies.is_empty() => {
                    let b = pick(&mut rng, &bodies);
                    let _ = w.set_body_split_parts(b, rng.next(3) as u32);
                    let _ = w.set_body_sleep_allowed(b, rng.next(5) != 0);
                }
                14 if !bodies.is_empty() && op % 2 == 0 => {
                    let b = bodies.swap_remove(rng.next(bodies.len()));
                    w.destroy_body(b).unwrap();
                    joints.retain(|&j| w.is_joint_valid(j));
                    shapes.retain(|&s| w.is_shape_valid(s));
                }
                15 if !bodies.is_empty() => {
                    let b = pick(&mut rng, &bodies);
                    let kind =
                        [BodyKind::Dynamic, BodyKind::Kinematic, BodyKind::Static][rng.next(3)];
                    let _ = w.set_body_kind(b, kind);
                }
                16 if !bodies.is_empty() => {
                    let b = pick(&mut rng, &bodies);
                    let p = w.body(b).unwrap().position();
                    let dz = [0.0, 0.0, 0.01][rng.next(3)];
                    let _ = w.set_body_target_pose(
                        b,
                        p + Vec3::new(0.0, 0.0, dz),
                        Quat::identity(),
                        1.0 / 60.0,
                    );
                }
                17 => {
                    if rng.next(4) == 0 {
                        w.set_sleep_settings(SleepSettings {
                            enabled: false,
                            ..Default::default()
                        })
                        .unwrap();
                        w.set_sleep_settings(SleepSettings {
                            enabled: true,
                            time: 0.05,
                            ..Default::default()
                        })
                        .unwrap();
                    } else if !shapes.is_empty() {
                        let s = shapes.swap_remove(rng.next(shapes.len()));
                        w.destroy_shape(s).unwrap();
                    }
                }
                18 if !joints.is_empty() => {
                    let j = joints.swap_remove(rng.next(joints.len()));
                    w.destroy_joint(j).unwrap();
                }
                19 if !bodies.is_empty() => {
                    let b = pick(&mut rng, &bodies);
                    let p = w.body(b).unwrap().position();
                    w.apply_impulse(b, Vec3::new(0.0, 0.0, 0.02), p).unwrap();
                }
                _ => {}
            }
            check_invariants(&w, stepped);
        }
        assert!(w.sleeping_body_count() > 0, "seed {seed}: nothing sleeps");
        sleep_state(&w)
    }

    #[test]
    fn more_paths_kept_groups_give_the_groups_joined_anew_give() {
        for seed in 1..=8 {
            assert_eq!(
                random_world2(seed, false),
                random_world2(seed, true),
                "seed {seed}"
            );
        }
    }

    #[test]
    fn sleeping_lists_compact_and_slots_reused_wake_right() {
        let mut w = World::default();
        crate::scenes::floor(&mut w, 0.0, Default::default());
        let mut bodies = Vec::new();
        for k in 0..12 {
            // pairs of cubes stacked: groups of two
            let p = Vec3::new((k / 2) as f64 * 2.0, 0.0, 0.5 + (k % 2) as f64 * 1.0);
            let b = w
                .create_body(&BodyDesc {
                    position: p,
                    ..Default::default()
                })
                .unwrap();
            w.create_shape(
                b,
                &ShapeDesc::new(Geometry::Box {
                    half_extents: Vec3::new(0.5, 0.5, 0.5),
                }),
            )
            .unwrap();
            bodies.push(b);
        }
        for _ in 0..30 {
            w.step(1.0 / 60.0).unwrap();
        }
        let mut most = 0;
        for r in 0..400 {
            w.set_body_awake(bodies[r % 12], false).unwrap();
            most = most.max(w.sleep.members.len());
            check_invariants(&w, false);
        }
        // (the list compacted: 92 entries at most for 12 bodies)
        assert!(most < 2 * 13 + 64 + 12, "{most}");
        // destroy a sleeping body, create one in its slot, put it to sleep alone, wake the others
        w.destroy_body(bodies[3]).unwrap();
        let nb = w
            .create_body(&BodyDesc {
                position: Vec3::new(50.0, 0.0, 5.0),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(nb.index, bodies[3].index);
        w.set_body_awake(nb, false).unwrap();
        check_invariants(&w, false);
        let live: Vec<BodyHandle> = bodies
            .iter()
            .copied()
            .filter(|&b| w.is_body_valid(b))
            .collect();
        for b in live {
            let p = w.body(b).unwrap().position();
            w.apply_impulse(b, Vec3::new(0.0, 0.0, 1e-3), p).unwrap();
            assert!(w.body(b).unwrap().is_awake());
        }
        assert!(!w.body(nb).unwrap().is_awake());
        let p = w.body(nb).unwrap().position();
        w.apply_impulse(nb, Vec3::new(0.0, 0.0, 1e-3), p).unwrap();
        assert_eq!(w.sleeping_body_count(), 0);
    }

    #[test]
    fn groups_kept_between_calls_give_the_world_groups_joined_anew_give() {
        for seed in 1..=6 {
            assert_eq!(
                random_world(seed, false),
                random_world(seed, true),
                "seed {seed}"
            );
        }
    }
}
