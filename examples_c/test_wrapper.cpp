// test_wrapper.cpp - CTest test of bindings/cpp/tenon.hpp: ownership moves, error results.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "tenon.hpp"

static int failures = 0;
#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

int main() {
  tenon_world_id raw{};
  {
    auto created = tenon::World::create();
    EXPECT(created.ok());
    tenon::World a = std::move(created).value();
    raw = a.id();
    tenon::World b = std::move(a);  // ownership moves; `a` is empty
    EXPECT(!a && b && b.id().index1 == raw.index1);
    auto body = b.create_body(tenon_body_def_default());
    EXPECT(body.ok());
    // errors come back as values, with the C code and message
    tenon_body_def bad = tenon_body_def_default();
    bad.mass_properties.mass = -1.0;
    auto r = b.create_body(bad);
    EXPECT(!r && r.code() == TENON_RESULT_INVALID_MASS);
    EXPECT(!tenon::last_error_message().empty());
    auto s = b.set_pose(body.value(), {std::nan(""), 0, 0}, {0, 0, 0, 1});
    EXPECT(!s && s.code() == TENON_RESULT_NON_FINITE);
    // islands on two worker threads; the body split on request
    EXPECT(b.threads().value() == 1);
    EXPECT(b.set_threads(2).ok() && b.threads().value() == 2);
    EXPECT(b.set_threads(100000).code() == TENON_RESULT_INVALID_ARGUMENT);
    EXPECT(b.ordering().value() == TENON_ORDERING_AMD);
    EXPECT(b.set_ordering(TENON_ORDERING_NESTED_DISSECTION).ok());
    EXPECT(b.ordering().value() == TENON_ORDERING_NESTED_DISSECTION);
    EXPECT(b.set_ordering(7).code() == TENON_RESULT_INVALID_ARGUMENT);
    EXPECT(b.ordering().value() == TENON_ORDERING_NESTED_DISSECTION);
    EXPECT(b.split_parts(body.value()).value() == 0);
    EXPECT(b.set_split_parts(body.value(), 2).ok() && b.split_parts(body.value()).value() == 2);
    // damping: 0 by default; a negative coefficient is refused and changes nothing
    EXPECT(b.linear_damping(body.value()).value() == 0.0);
    EXPECT(b.set_linear_damping(body.value(), 0.5).ok());
    EXPECT(b.linear_damping(body.value()).value() == 0.5);
    EXPECT(b.set_angular_damping(body.value(), -1.0).code() == TENON_RESULT_INVALID_ARGUMENT);
    EXPECT(b.angular_damping(body.value()).value() == 0.0);
    // a kinematic body ends the step at the target pose it was given
    tenon_body_def kd = tenon_body_def_default();
    kd.kind = TENON_BODY_KIND_KINEMATIC;
    auto kin = b.create_body(kd);
    EXPECT(kin.ok());
    EXPECT(b.set_target_pose(kin.value(), {1, 2, 3}, {0, 0, 1, 0}, 0.5).ok());
    EXPECT(b.set_target_pose(body.value(), {1, 2, 3}, {0, 0, 0, 1}, 0.5).code() ==
           TENON_RESULT_INVALID_ARGUMENT);
    EXPECT(b.step(0.5).ok());
    EXPECT(std::fabs(b.position(kin.value()).value().z - 3.0) < 1e-12);
    EXPECT(std::fabs(std::fabs(b.rotation(kin.value()).value().z) - 1.0) < 1e-12);
    EXPECT(b.destroy_body(kin.value()).ok());
    EXPECT(b.step(1.0 / 60.0).ok());
    // sleep: off by default; the caller puts a body to sleep and wakes it
    EXPECT(b.sleep_settings().value().enabled == 0);
    tenon_sleep_settings sleep = tenon_sleep_settings_default();
    sleep.enabled = 1;
    EXPECT(b.set_sleep_settings(sleep).ok() && b.sleep_settings().value().enabled == 1);
    sleep.time = -1.0;
    EXPECT(b.set_sleep_settings(sleep).code() == TENON_RESULT_INVALID_ARGUMENT);
    EXPECT(b.awake(body.value()).value());
    EXPECT(b.set_awake(body.value(), false).ok() && !b.awake(body.value()).value());
    EXPECT(b.sleeping_body_count().value() == 1);
    EXPECT(b.step(1.0 / 60.0).ok() && !b.awake(body.value()).value());
    EXPECT(b.set_sleep_allowed(body.value(), false).ok() && b.awake(body.value()).value());
    EXPECT(!b.sleep_allowed(body.value()).value());
    EXPECT(b.destroy_body(body.value()).ok());
    auto stale = b.position(body.value());
    EXPECT(!stale && stale.code() == TENON_RESULT_INVALID_HANDLE);
  }
  // the destructor destroyed the world
  EXPECT(tenon_world_destroy(raw) == TENON_RESULT_WORLD_DESTROYED);
  {
    // a torque-limited motor spins a 4 kg, 1 m cube (2/3 kg m^2) up at 2 N m
    tenon_world_def wd = tenon_world_def_default();
    wd.gravity = {0, 0, 0};
    tenon::World w = tenon::World::create(wd).value();
    tenon_body_def bd = tenon_body_def_default();
    EXPECT(tenon_mass_solid_box(4.0, {0.5, 0.5, 0.5}, &bd.mass_properties) == TENON_RESULT_OK);
    tenon::BodyId wheel = w.create_body(bd).value();
    auto hinge = w.create_joint(TENON_JOINT_TYPE_HINGE, tenon::BodyId{}, wheel, {0, 0, 0}, {1, 0, 0});
    EXPECT(hinge.ok());
    // the joints listed, their frames and user data read back
    std::vector<tenon::JointId> joints;
    EXPECT(w.joint_ids(joints).ok() && joints.size() == 1 && joints[0] == hinge.value());
    auto frames = w.joint_frames(hinge.value());
    EXPECT(frames.ok() && frames.value().second.anchor.x == 0.0 &&
           std::fabs(frames.value().first.rotation.w - 1.0) < 1e-12);
    EXPECT(w.user_data(hinge.value()).value() == 0);
    tenon_motor m = tenon_joint_def_default().motor;
    m.mode = TENON_MOTOR_MODE_VELOCITY;
    m.target_velocity = 10.0;
    m.max_force = 2.0;
    EXPECT(w.set_motor(hinge.value(), m).ok());
    EXPECT(w.step(1.0 / 60.0).ok());
    EXPECT(std::fabs(w.joint_motor_impulse(hinge.value()).value() - 2.0 / 60.0) < 1e-12);
    m.max_force = 0.0;
    EXPECT(w.set_motor(hinge.value(), m).code() == TENON_RESULT_INVALID_ARGUMENT);
    // a ball joint's servo (5 N m) turns a second cube a quarter turn about z and holds it there
    bd.position = {3, 0, 0};
    tenon::BodyId cube = w.create_body(bd).value();
    tenon::JointId ball = w.create_joint(TENON_JOINT_TYPE_BALL, tenon::BodyId{}, cube, {3, 0, 0}, {1, 0, 0}).value();
    m = tenon_joint_def_default().motor;
    m.mode = TENON_MOTOR_MODE_VELOCITY;  // a ball joint's velocity motor is friction, at 0 only
    m.target_velocity = 1.0;
    m.max_force = 5.0;
    EXPECT(w.set_motor(ball, m).code() == TENON_RESULT_WRONG_JOINT_TYPE);
    m.mode = TENON_MOTOR_MODE_POSITION;
    m.target_velocity = 0.0;
    EXPECT(w.set_motor(ball, m).ok());
    const tenon_quat quarter = {0, 0, std::sqrt(0.5), std::sqrt(0.5)};
    EXPECT(w.set_motor_rotation(ball, quarter).ok());
    EXPECT(w.set_motor_rotation(ball, {0, 0, 0, 2}).code() == TENON_RESULT_INVALID_ROTATION);
    EXPECT(w.set_motor_rotation(hinge.value(), quarter).code() == TENON_RESULT_WRONG_JOINT_TYPE);
    EXPECT(std::fabs(w.motor_rotation(ball).value().z - std::sqrt(0.5)) < 1e-15);
    for (int k = 0; k < 120; ++k) EXPECT(w.step(1.0 / 60.0).ok());
    tenon_quat q = w.rotation(cube).value();
    EXPECT(std::fabs(q.x) < 1e-9 && std::fabs(q.y) < 1e-9 && std::fabs(q.z - quarter.z) < 1e-9 &&
           std::fabs(q.w - quarter.w) < 1e-9);
  }
  {
    // shapes and the contact view: a box settles on a plane with 4 contact points
    tenon::World w = tenon::World::create().value();
    tenon_body_def gd = tenon_body_def_default();
    gd.kind = TENON_BODY_KIND_STATIC;
    tenon::BodyId ground = w.create_body(gd).value();
    tenon_shape_def plane = tenon_shape_def_default();
    plane.type = TENON_SHAPE_TYPE_HALF_SPACE;
    EXPECT(w.create_shape(ground, plane).ok());
    tenon_body_def bd = tenon_body_def_default();
    bd.position = {0, 0, 0.5};
    bd.user_data = 11;
    tenon::BodyId box = w.create_body(bd).value();
    tenon_shape_def sd = tenon_shape_def_default();
    sd.user_data = 12;
    tenon::ShapeId box_shape = w.create_shape(box, sd).value();
    EXPECT(w.set_mass_from_shapes(box).value().mass == 1000.0);
    EXPECT(w.user_data(box).value() == 11 && w.user_data(box_shape).value() == 12);
    // the ground carries the weight over each of the last 10 steps (within 0.3 %: at rest the
    // box keeps velocities of about 1e-4 m/s, which the collision phase stops in some
    // steps) and over the 10 together (within 0.1 %)
    const double weight = 1000.0 * 9.81 / 60.0;
    double sum = 0.0;
    for (int k = 0; k < 30; ++k) {
      EXPECT(w.step(1.0 / 60.0).ok());
      if (k < 20) continue;
      auto contacts = w.contacts();
      EXPECT(contacts.ok() && contacts.value().size == 4);
      double total = 0.0;
      for (const tenon_contact& c : contacts.value()) {
        total += c.normal_impulse;
        // the box's side of each contact names its game object
        tenon::ShapeId side{c.body_b.index1 == box.raw.index1 ? c.shape_b : c.shape_a};
        EXPECT(w.user_data(side).value() == 12);
      }
      EXPECT(std::fabs(total - weight) < 3e-3 * weight);
      sum += total;
    }
    EXPECT(std::fabs(sum / 10.0 - weight) < 1e-3 * weight);
    // a ray down onto the resting box meets its top face; one up from beside it, nothing
    auto top = w.cast_ray({0.1, 0.2, 5.0}, {0, 0, -1}, 100.0);
    EXPECT(top.ok() && top.value().has_value() && top.value()->body.index1 == box.raw.index1);
    EXPECT(std::fabs(top.value()->distance - 4.0) < 1e-4 && top.value()->normal.z > 0.999);
    auto none = w.cast_ray({3.0, 0, 1.0}, {0, 0, 1}, 100.0);
    EXPECT(none.ok() && !none.value().has_value());
    EXPECT(w.cast_ray({0, 0, 1.0}, {0, 0, 0}, 1.0).status().code() ==
           TENON_RESULT_INVALID_ARGUMENT);
    // every hit of a ray down: the box's top face, then the ground (the vector grows to fit
    // from empty, and is reused)
    std::vector<tenon_ray_hit> hits;
    for (int k = 0; k < 2; ++k) {
      EXPECT(w.cast_ray_all({0.1, 0.2, 5.0}, {0, 0, -1}, 100.0, hits).ok());
      EXPECT(hits.size() == 2 && hits[0].body.index1 == box.raw.index1);
      EXPECT(std::fabs(hits[1].distance - 5.0) < 1e-12);
    }
    EXPECT(w.cast_ray_all({0, 0, 5.0}, {0, 0, -1}, -1.0, hits).code() ==
           TENON_RESULT_INVALID_ARGUMENT && hits.empty());
    // the box's bounding box and a ball of 0.2 m 0.1 m above its top face: the box alone
    std::vector<tenon::ShapeId> shapes;
    EXPECT(w.overlap_aabb({-0.2, -0.2, 0.6}, {0.2, 0.2, 0.9}, shapes).ok() && shapes.size() == 1);
    tenon_shape_def ball = tenon_shape_def_default();
    ball.type = TENON_SHAPE_TYPE_SPHERE;
    ball.radius = 0.2;
    EXPECT(w.overlap_shape(ball, {0, 0, 1.1}, {0, 0, 0, 1}, shapes).ok() && shapes.size() == 1);
    EXPECT(w.overlap_shape(ball, {0, 0, 1.3}, {0, 0, 0, 1}, shapes).ok() && shapes.empty());
    // the ball dropped from 5 m lands on the box after 5 - 0.2 - 1 m; swept up, nothing
    auto drop = w.cast_shape(ball, {0, 0, 5.0}, {0, 0, 0, 1}, {0, 0, -1}, 100.0);
    EXPECT(drop.ok() && drop.value().has_value() && drop.value()->body.index1 == box.raw.index1);
    EXPECT(std::fabs(drop.value()->distance - 3.8) < 1e-4 && drop.value()->normal.z > 0.999);
    auto up = w.cast_shape(ball, {0, 0, 5.0}, {0, 0, 0, 1}, {0, 0, 1}, 100.0);
    EXPECT(up.ok() && !up.value().has_value());
    // a static trigger volume around the resting box: the box enters it at the next step, as
    // one begin event; the box still rests on the ground on 4 points, and rays pass it
    tenon::BodyId zone = w.create_body(gd).value();
    tenon_shape_def trigger = tenon_shape_def_default();
    trigger.half_extents = {2, 2, 2};
    tenon::ShapeId sensor = w.create_shape(zone, trigger).value();
    EXPECT(w.set_sensor(sensor, true).ok() && w.is_sensor(sensor).value());
    EXPECT(w.shapes(zone, shapes).ok() && shapes.size() == 1 && shapes[0] == sensor);
    std::vector<tenon::JointId> attached;
    EXPECT(w.joints(box, attached).ok() && attached.empty());
    EXPECT(!w.is_sensor(box_shape).value());
    EXPECT(w.step(1.0 / 60.0).ok());
    auto events = w.sensor_events();
    EXPECT(events.ok() && events.value().size == 1);
    for (const tenon_sensor_event& e : events.value()) {
      EXPECT(e.begin == 1 && e.sensor.index1 == sensor.raw.index1 &&
             e.visitor.index1 == box_shape.raw.index1);
    }
    EXPECT(w.sensor_overlaps(sensor, shapes).ok() && shapes.size() == 1 &&
           shapes[0] == box_shape);
    EXPECT(w.contacts().value().size == 4);
    auto through = w.cast_ray({0.1, 0.2, 5.0}, {0, 0, -1}, 100.0);
    EXPECT(through.ok() && through.value()->body.index1 == box.raw.index1);
    EXPECT(w.step(1.0 / 60.0).ok() && w.sensor_events().value().size == 0);
  }
  {
    // a one-way platform by the pre-solve hook: a ball thrown up passes through the slab and
    // lands on it; the hook moves with its World; an exception it throws comes out of step()
    tenon::World moved = tenon::World::create().value();
    tenon_body_def sd = tenon_body_def_default();
    sd.kind = TENON_BODY_KIND_STATIC;
    sd.position = {0, 0, 2};
    tenon::BodyId slab_body = moved.create_body(sd).value();
    tenon_shape_def slab_def = tenon_shape_def_default();
    slab_def.half_extents = {2, 2, 0.05};
    tenon::ShapeId slab = moved.create_shape(slab_body, slab_def).value();
    tenon_body_def bd = tenon_body_def_default();
    bd.position = {0, 0, 0.5};
    bd.linear_velocity = {0, 0, 9};
    tenon::BodyId ball = moved.create_body(bd).value();
    tenon_shape_def ball_def = tenon_shape_def_default();
    ball_def.type = TENON_SHAPE_TYPE_SPHERE;
    ball_def.radius = 0.2;
    EXPECT(moved.create_shape(ball, ball_def).ok());
    EXPECT(moved.set_mass_from_shapes(ball).ok());
    int asked = 0;
    EXPECT(moved
               .set_pre_solve([&](tenon_pre_solve& p) {
                 ++asked;
                 double up = 0;
                 if (p.shape_a.index1 == slab.raw.index1) up = p.normal.z;
                 else if (p.shape_b.index1 == slab.raw.index1) up = -p.normal.z;
                 else return true;
                 return up > 0.7 && p.separation > -0.01 && p.normal_velocity < 0.1;
               })
               .ok());
    tenon::World w = std::move(moved);
    double highest = 0;
    for (int k = 0; k < 240; ++k) {
      EXPECT(w.step(1.0 / 60.0).ok());
      highest = std::max(highest, w.position(ball).value().z);
    }
    EXPECT(asked > 0 && highest > 4.5 && highest < 4.7);
    EXPECT(std::fabs(w.position(ball).value().z - 2.25) < 1e-4);
    // a hook that throws: the pair is kept, the exception comes out of step()
    EXPECT(w.set_pre_solve([](tenon_pre_solve&) -> bool { throw std::runtime_error("hook"); })
               .ok());
    bool thrown = false;
    try {
      (void)w.step(1.0 / 60.0);
    } catch (const std::runtime_error& e) {
      thrown = std::string(e.what()) == "hook";
    }
    EXPECT(thrown);
    // nor reset from it: the World still owns the world and its hook
    tenon::Status inside;
    EXPECT(w.set_pre_solve([&](tenon_pre_solve&) {
              inside = w.reset();
              return true;
            })
               .ok());
    EXPECT(w.step(1.0 / 60.0).ok());
    EXPECT(inside.code() == TENON_RESULT_WORLD_LOCKED && w);
    EXPECT(w.set_pre_solve(nullptr).ok() && w.step(1.0 / 60.0).ok());
    EXPECT(std::fabs(w.position(ball).value().z - 2.25) < 1e-4);
  }
  {
    // a conveyor: a box set on a static belt moving at 2 m/s rides at 2 m/s
    tenon::World w = tenon::World::create().value();
    tenon_body_def gd = tenon_body_def_default();
    gd.kind = TENON_BODY_KIND_STATIC;
    gd.position = {0, 0, -0.5};
    tenon::BodyId ground = w.create_body(gd).value();
    tenon_shape_def belt_def = tenon_shape_def_default();
    belt_def.half_extents = {20, 2, 0.5};
    tenon::ShapeId belt = w.create_shape(ground, belt_def).value();
    EXPECT(w.set_surface_velocity(belt, {2, 0, 0}).ok());
    EXPECT(w.surface_velocity(belt).value().x == 2);
    EXPECT(w.set_surface_velocity(belt, {0, std::nan(""), 0}).code() == TENON_RESULT_NON_FINITE);
    tenon_body_def bd = tenon_body_def_default();
    bd.position = {0, 0, 0.5};
    tenon::BodyId box = w.create_body(bd).value();
    EXPECT(w.create_shape(box, tenon_shape_def_default()).ok());
    EXPECT(w.set_mass_from_shapes(box).ok());
    for (int k = 0; k < 60; ++k) EXPECT(w.step(1.0 / 60.0).ok());
    EXPECT(std::fabs(w.linear_velocity(box).value().x - 2.0) < 1e-4);
  }
  {
    // debug drawing: a box's 12 edges, 1 m each; an exception thrown in the callback comes out
    tenon::World w = tenon::World::create().value();
    tenon::BodyId box = w.create_body(tenon_body_def_default()).value();
    EXPECT(w.create_shape(box, tenon_shape_def_default()).ok());
    int edges = 0;
    double longest = 0;
    EXPECT(w.debug_draw([&](tenon_vec3 a, tenon_vec3 b, tenon_draw_kind kind) {
              edges += kind == TENON_DRAW_KIND_DYNAMIC;
              longest = std::max(longest, std::hypot(b.x - a.x, b.y - a.y, b.z - a.z));
            }).ok());
    EXPECT(edges == 12 && std::fabs(longest - 1.0) < 1e-12);
    bool thrown = false;
    try {
      (void)w.debug_draw([](tenon_vec3, tenon_vec3, tenon_draw_kind) { throw std::runtime_error("draw"); });
    } catch (const std::runtime_error& e) {
      thrown = std::string(e.what()) == "draw";
    }
    EXPECT(thrown);
    EXPECT(w.debug_draw([](tenon_vec3, tenon_vec3, tenon_draw_kind) {}, 64).code() ==
           TENON_RESULT_INVALID_ARGUMENT);
  }
  {
    // a joint that breaks: a 3 kg bob on a rope that holds 1.05 m g, pulled with 0.1 m g more
    tenon::World w = tenon::World::create().value();
    tenon_body_def bd = tenon_body_def_default();
    bd.position = {0, 0, -1};
    EXPECT(tenon_mass_solid_sphere(3.0, 0.05, &bd.mass_properties) == TENON_RESULT_OK);
    tenon::BodyId bob = w.create_body(bd).value();
    tenon_joint_def jd = tenon_joint_def_default();
    jd.type = TENON_JOINT_TYPE_BALL;
    jd.body_b = bob.raw;
    EXPECT(tenon_joint_def_set_world_frame(w.id(), &jd, {0, 0, 0}, {1, 0, 0}) == TENON_RESULT_OK);
    tenon::JointId rope = w.create_joint(jd).value();
    const double mg = 3.0 * 9.81;
    EXPECT(w.break_force(rope).value().first == std::numeric_limits<double>::infinity());
    EXPECT(w.set_break_force(rope, 1.05 * mg, std::numeric_limits<double>::infinity()).ok());
    EXPECT(w.set_break_force(rope, -1.0, 1.0).code() == TENON_RESULT_INVALID_ARGUMENT);
    EXPECT(w.break_force(rope).value().first == 1.05 * mg);
    for (int k = 0; k < 30; ++k) EXPECT(w.step(1.0 / 60.0).ok() && w.joint_breaks().value().size == 0);
    EXPECT(tenon_body_apply_force(bob.raw, {0, 0, -0.1 * mg}, {0, 0, -1}) == TENON_RESULT_OK);
    EXPECT(w.step(1.0 / 60.0).ok());
    auto breaks = w.joint_breaks().value();
    EXPECT(breaks.size == 1 && breaks[0].joint.index1 == rope.raw.index1 &&
           std::fabs(breaks[0].force - 1.1 * mg) < 1e-9 && breaks[0].body_a.index1 == 0);
    EXPECT(w.joint_violation(rope).code() == TENON_RESULT_INVALID_HANDLE);
  }
  {
    // save, restore, look ahead: a copy steps bit for bit as the original
    tenon::World w = tenon::World::create().value();
    tenon_body_def bd = tenon_body_def_default();
    bd.position = {1, 0, 0};
    tenon::BodyId bob = w.create_body(bd).value();
    tenon_joint_def jd = tenon_joint_def_default();
    jd.type = TENON_JOINT_TYPE_BALL;
    jd.body_b = bob.raw;
    EXPECT(tenon_joint_def_set_world_frame(w.id(), &jd, {0, 0, 0}, {1, 0, 0}) == TENON_RESULT_OK);
    tenon::JointId pivot = w.create_joint(jd).value();
    tenon::World snapshot = tenon::World::create().value();
    EXPECT(snapshot.copy_from(w).ok());
    for (int k = 0; k < 20; ++k) EXPECT(w.step(1.0 / 60.0).ok());
    tenon_vec3 first = w.position(bob).value();
    EXPECT(w.copy_from(snapshot).ok());
    for (int k = 0; k < 20; ++k) EXPECT(w.step(1.0 / 60.0).ok());
    tenon_vec3 again = w.position(bob).value();
    EXPECT(first.x == again.x && first.y == again.y && first.z == again.z && first.z < -0.2);
    tenon::World ahead = w.clone().value();
    tenon::BodyId bob_ahead = ahead.id_of(bob).value();
    EXPECT(bob_ahead.raw.world == ahead.id().index1 && ahead.id_of(pivot).ok());
    for (int k = 0; k < 10; ++k) EXPECT(ahead.step(1.0 / 60.0).ok());
    EXPECT(ahead.position(bob_ahead).value().x != w.position(bob).value().x);
    EXPECT(w.copy_from(w).code() == TENON_RESULT_INVALID_ARGUMENT);
    EXPECT(w.shape_contact_events().ok() && w.shape_contact_events().value().size == 0);
    // the pendulum's bob moved in the last step, where it is now
    auto moved = w.body_move_events();
    EXPECT(moved.ok() && moved.value().size == 1 && moved.value()[0].body.index1 == bob.raw.index1 &&
           moved.value()[0].position.x == w.position(bob).value().x);
    EXPECT(snapshot.id_of(tenon::ShapeId{}).code() == TENON_RESULT_INVALID_HANDLE);
  }
  tenon::BodyId null_id;
  EXPECT(null_id.is_null() && null_id == tenon::BodyId{});
  if (failures) return 1;
  std::printf("OK: wrapper checks passed\n");
  return 0;
}
