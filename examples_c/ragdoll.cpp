// ragdoll.cpp - a tumbling ragdoll in free fall, with the C++ wrapper bindings/cpp/tenon.hpp.
//
// Torso, head (ball joint), arms (ball shoulders, hinge elbows), legs (universal hips, hinge
// knees), a backpack welded on (fixed joint); elbows and knees have ranges, the neck a swing cone
// and twist range; the neck and shoulders have joint friction (0.5 N m about each axis). Kicked
// into a tumble and left to fall: the joints and their friction are internal, so the total
// linear momentum must grow exactly as M g t, and every joint and limit must stay within eps_p.
// Exits non-zero if either fails, or if the friction never acts or exceeds its bound.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tenon.hpp"

namespace {

struct Part {
  tenon::BodyId id;
  double mass;
};

template <class R>
void must(const R& r, const char* what) {
  if (!r) {
    std::fprintf(stderr, "%s: %s (%s)\n", what, r.name(), tenon::last_error_message().c_str());
    std::exit(1);
  }
}

}  // namespace

int main() {
  auto created = tenon::World::create();
  must(created, "create world");
  tenon::World world = std::move(created).value();

  std::vector<Part> parts;
  auto box = [&](tenon_vec3 center, tenon_vec3 half, double mass) {
    tenon_body_def def = tenon_body_def_default();
    def.position = center;
    must(tenon::Status(tenon_mass_solid_box(mass, half, &def.mass_properties)), "mass");
    auto b = world.create_body(def);
    must(b, "create body");
    parts.push_back({b.value(), mass});
    return b.value();
  };
  auto joint = [&](uint32_t type, tenon::BodyId a, tenon::BodyId b, tenon_vec3 at, tenon_vec3 axis) {
    auto j = world.create_joint(type, a, b, at, axis);
    must(j, "create joint");
    return j.value();
  };

  std::vector<tenon::JointId> joints;
  tenon::BodyId torso = box({0, 0, 1.2}, {0.1, 0.15, 0.25}, 20.0);
  tenon::BodyId head = box({0, 0, 1.57}, {0.1, 0.1, 0.1}, 4.0);
  tenon::BodyId pack = box({-0.2, 0, 1.25}, {0.1, 0.12, 0.15}, 6.0);
  joints.push_back(joint(TENON_JOINT_TYPE_BALL, torso, head, {0, 0, 1.46}, {0, 0, 1}));
  must(world.set_limits(joints.back(), {-0.4, 0.4, 0.5, 0.0}), "neck limits");
  joints.push_back(joint(TENON_JOINT_TYPE_FIXED, torso, pack, {-0.1, 0, 1.25}, {1, 0, 0}));
  for (double side : {-1.0, 1.0}) {
    tenon::BodyId upper = box({0, side * 0.30, 1.4}, {0.04, 0.13, 0.04}, 2.0);
    tenon::BodyId fore = box({0, side * 0.55, 1.4}, {0.035, 0.12, 0.035}, 1.5);
    joints.push_back(joint(TENON_JOINT_TYPE_BALL, torso, upper, {0, side * 0.17, 1.4}, {0, 1, 0}));
    joints.push_back(joint(TENON_JOINT_TYPE_HINGE, upper, fore, {0, side * 0.43, 1.4}, {0, 0, 1}));
    must(world.set_limits(joints.back(), {-0.1, 2.4, INFINITY, 0.0}), "elbow limits");
    tenon::BodyId thigh = box({0, side * 0.08, 0.75}, {0.06, 0.06, 0.2}, 7.0);
    tenon::BodyId shin = box({0, side * 0.08, 0.35}, {0.05, 0.05, 0.2}, 4.0);
    joints.push_back(joint(TENON_JOINT_TYPE_UNIVERSAL, torso, thigh, {0, side * 0.08, 0.95}, {0, 1, 0}));
    joints.push_back(joint(TENON_JOINT_TYPE_HINGE, thigh, shin, {0, side * 0.08, 0.55}, {0, 1, 0}));
    must(world.set_limits(joints.back(), {0.0, 2.3, INFINITY, 0.0}), "knee limits");
  }

  // joint friction in the ball joints (neck and shoulders): a velocity motor at 0 with a torque
  // limit, three rows about the joint's axes
  const double friction = 0.5;
  std::vector<tenon::JointId> balls;
  for (tenon::JointId j : joints) {
    uint32_t type = 0;
    must(tenon::Status(tenon_joint_get_type(j.raw, &type)), "joint type");
    if (type != TENON_JOINT_TYPE_BALL) continue;
    tenon_motor m = tenon_joint_def_default().motor;
    m.mode = TENON_MOTOR_MODE_VELOCITY;
    m.target_velocity = 0.0;
    m.max_force = friction;
    must(world.set_motor(j, m), "ball friction");
    balls.push_back(j);
  }

  // kick it into a tumble
  must(world.apply_impulse(torso, {30, 10, 60}, {0.1, 0.15, 1.4}), "impulse");
  must(world.apply_impulse(parts[5].id, {0, 0, 8}, {0, 0.6, 1.4}), "impulse");
  must(world.apply_angular_impulse(head, {0.5, 0, 0.3}), "impulse");

  auto momentum = [&](tenon_vec3& p, double& mass) {
    p = {0, 0, 0};
    mass = 0;
    for (const Part& part : parts) {
      auto v = world.linear_velocity(part.id);
      must(v, "velocity");
      p.x += part.mass * v.value().x;
      p.y += part.mass * v.value().y;
      p.z += part.mass * v.value().z;
      mass += part.mass;
    }
  };
  tenon_vec3 p0;
  double total_mass;
  momentum(p0, total_mass);
  const double eps_p = world.eps_p().value_or(1e-9);
  const double dt = 1.0 / 60.0, g = 9.81;

  double worst_joint = 0.0, worst_momentum = 0.0, most_friction = 0.0;
  bool converged = true;
  std::vector<tenon::BodyPose> poses;
  for (int step = 1; step <= 180; ++step) {
    auto report = world.step(dt);
    must(report, "step");
    converged = converged && report.value().converged;
    for (tenon::JointId j : joints) worst_joint = std::fmax(worst_joint, world.joint_violation(j).value_or(1.0));
    for (tenon::JointId j : balls) most_friction = std::fmax(most_friction, world.joint_motor_impulse(j).value_or(1e9) / dt);
    tenon_vec3 p;
    double m;
    momentum(p, m);
    const double t = step * dt;
    const double err = std::sqrt((p.x - p0.x) * (p.x - p0.x) + (p.y - p0.y) * (p.y - p0.y) +
                                 (p.z - (p0.z - m * g * t)) * (p.z - (p0.z - m * g * t)));
    worst_momentum = std::fmax(worst_momentum, err / (m * g * t));
    if (step % 60 == 0) {
      must(world.body_poses(poses), "poses");
      std::printf("t = %.0f s  %zu bodies  head at z = %+.3f m  max joint error %.2e  momentum error %.1e M g t\n",
                  t, poses.size(), world.position(head).value().z, worst_joint, worst_momentum);
    }
  }
  // the friction acted (one axis at least at its bound) and never beyond sqrt(3) x its bound
  const bool friction_ok = most_friction >= friction * (1 - 1e-9) && most_friction <= std::sqrt(3.0) * friction * (1 + 1e-9);
  if (!converged || worst_joint > eps_p || worst_momentum > 1e-6 || !friction_ok) {
    std::fprintf(stderr,
                 "FAILED: converged %d, joint error %.3e (tolerance %.1e), momentum error %.3e, friction %.3f N m\n",
                 converged, worst_joint, eps_p, worst_momentum, most_friction);
    return 1;
  }
  std::printf("OK: %zu joints within %.1e, momentum = M g t within %.1e, ball friction up to %.3f N m\n",
              joints.size(), eps_p, worst_momentum, most_friction);
  return 0;
}
