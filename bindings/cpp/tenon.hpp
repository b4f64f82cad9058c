// tenon.hpp - header-only C++17 wrapper of the Tenon C API (include/tenon.h).
//
// * tenon::World owns a world (move-only; destroys it in its destructor).
// * Every fallible call returns [[nodiscard]] tenon::Result<T> or tenon::Status: no exceptions
//   (but the caller's own, thrown by a pre-solve hook, which step() throws again);
//   the error is the C API's tenon_result code plus tenon::last_error_message().
// * BodyId and JointId are plain value types wrapping the C ids (compare with ==).
// * Units SI, frames as in tenon.h. Threading as in tenon.h: one World per thread at a time.
#ifndef TENON_HPP
#define TENON_HPP

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tenon.h"

namespace tenon {

/// The detailed message of the last failed call on this thread.
inline std::string last_error_message() {
  size_t len = 0;
  if (tenon_last_error_message(nullptr, 0, &len) != TENON_RESULT_OK) return {};
  std::string s(len + 1, '\0');
  if (tenon_last_error_message(s.data(), s.size(), &len) != TENON_RESULT_OK) return {};
  s.resize(len);
  return s;
}

/// Outcome of a call without a value.
class [[nodiscard]] Status {
 public:
  constexpr Status(tenon_result code = TENON_RESULT_OK) noexcept : code_(code) {}
  constexpr bool ok() const noexcept { return code_ == TENON_RESULT_OK; }
  constexpr explicit operator bool() const noexcept { return ok(); }
  constexpr tenon_result code() const noexcept { return code_; }
  /// "TENON_RESULT_..." (static string).
  const char* name() const noexcept { return tenon_result_str(static_cast<uint32_t>(code_)); }

 private:
  tenon_result code_;
};

/// A value or an error code.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)), code_(TENON_RESULT_OK) {}
  Result(tenon_result error) : code_(error == TENON_RESULT_OK ? TENON_RESULT_PANIC : error) {}
  bool ok() const noexcept { return value_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  tenon_result code() const noexcept { return code_; }
  const char* name() const noexcept { return tenon_result_str(static_cast<uint32_t>(code_)); }
  /// The value; only valid when ok().
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  T value_or(T fallback) const { return ok() ? *value_ : fallback; }
  Status status() const noexcept { return Status(code_); }

 private:
  std::optional<T> value_;
  tenon_result code_;
};

/// A body, joint or shape id (value type, one type per raw C id). Null when
/// default-constructed.
template <class Raw>
struct Id {
  Raw raw{};
  bool is_null() const noexcept { return raw.index1 == 0 && raw.world == 0; }
  friend bool operator==(Id a, Id b) noexcept {
    return a.raw.index1 == b.raw.index1 && a.raw.world == b.raw.world &&
           a.raw.generation == b.raw.generation;
  }
  friend bool operator!=(Id a, Id b) noexcept { return !(a == b); }
};
using BodyId = Id<tenon_body_id>;
using JointId = Id<tenon_joint_id>;
using ShapeId = Id<tenon_shape_id>;

/// A read-only view of a world-owned array (contacts, contact events): valid until the next
/// step or the world's end.
template <class T>
struct View {
  const T* data = nullptr;
  size_t size = 0;
  const T* begin() const noexcept { return data; }
  const T* end() const noexcept { return data + size; }
  const T& operator[](size_t i) const noexcept { return data[i]; }
};

/// One body's pose from World::body_poses().
struct BodyPose {
  BodyId id;
  tenon_vec3 position;
  tenon_quat rotation;
};

/// Owns one world. Move-only; the destructor destroys the world and everything in it.
class World {
 public:
  World() noexcept = default;
  static Result<World> create(const tenon_world_def& def = tenon_world_def_default()) {
    tenon_world_id id{};
    tenon_result r = tenon_world_create(&def, &id);
    if (r != TENON_RESULT_OK) return r;
    return World(id);
  }
  // (a world that cannot be destroyed now, stepping on another thread or in its own hook, is
  // left with its hook: the library still holds the hook's address)
  ~World() {
    if (!reset()) (void)pre_solve_.release();
  }
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  World(World&& o) noexcept
      : pre_solve_(std::move(o.pre_solve_)), id_(std::exchange(o.id_, tenon_world_id{})) {}
  World& operator=(World&& o) noexcept {
    if (this != &o) {
      if (!reset()) (void)pre_solve_.release();
      id_ = std::exchange(o.id_, tenon_world_id{});
      pre_solve_ = std::move(o.pre_solve_);
    }
    return *this;
  }
  /// Destroys the world now (the object becomes empty). Fails with TENON_RESULT_WORLD_LOCKED
  /// while the world is stepping (on another thread, or from its own pre-solve hook): the
  /// object then still owns it.
  Status reset() noexcept {
    if (id_.index1 == 0) return TENON_RESULT_OK;
    tenon_result r = tenon_world_destroy(id_);
    if (r == TENON_RESULT_OK || r == TENON_RESULT_WORLD_DESTROYED) {
      id_ = tenon_world_id{};
      pre_solve_.reset();
    }
    return r;
  }
  tenon_world_id id() const noexcept { return id_; }
  explicit operator bool() const noexcept { return id_.index1 != 0; }

  // ---- bodies
  Result<BodyId> create_body(const tenon_body_def& def) {
    BodyId b;
    tenon_result r = tenon_body_create(id_, &def, &b.raw);
    if (r != TENON_RESULT_OK) return r;
    return b;
  }
  /// Destroys the body and every joint attached to it.
  Status destroy_body(BodyId b) noexcept { return tenon_body_destroy(b.raw); }
  Result<tenon_vec3> position(BodyId b) const { return get(tenon_body_get_position, b.raw); }
  Result<tenon_quat> rotation(BodyId b) const { return get(tenon_body_get_rotation, b.raw); }
  Result<tenon_vec3> linear_velocity(BodyId b) const {
    return get(tenon_body_get_linear_velocity, b.raw);
  }
  Result<tenon_vec3> angular_velocity(BodyId b) const {
    return get(tenon_body_get_angular_velocity, b.raw);
  }
  Result<tenon_mass_properties> mass_properties(BodyId b) const {
    return get(tenon_body_get_mass_properties, b.raw);
  }
  /// The body def's user_data.
  Result<uint64_t> user_data(BodyId b) const { return get(tenon_body_get_user_data, b.raw); }
  Status set_pose(BodyId b, tenon_vec3 p, tenon_quat q) noexcept {
    return tenon_body_set_pose(b.raw, p, q);
  }
  Status set_velocity(BodyId b, tenon_vec3 linear, tenon_vec3 angular) noexcept {
    return tenon_body_set_velocity(b.raw, linear, angular);
  }
  /// A kinematic body reaches this pose at the end of the next step of dt (velocities set).
  Status set_target_pose(BodyId b, tenon_vec3 p, tenon_quat q, double dt) noexcept {
    return tenon_body_set_target_pose(b.raw, p, q, dt);
  }
  /// Parts the solver splits the body into: 0 automatic, 1 never, k that many.
  Status set_split_parts(BodyId b, uint32_t parts) noexcept {
    return tenon_body_set_split_parts(b.raw, parts);
  }
  Result<uint32_t> split_parts(BodyId b) const { return get(tenon_body_get_split_parts, b.raw); }
  /// Drag on the body's velocity (1/s, >= 0): each step of h multiplies it by 1 / (1 + h c).
  Status set_linear_damping(BodyId b, double c) noexcept {
    return tenon_body_set_linear_damping(b.raw, c);
  }
  Result<double> linear_damping(BodyId b) const {
    return get(tenon_body_get_linear_damping, b.raw);
  }
  Status set_angular_damping(BodyId b, double c) noexcept {
    return tenon_body_set_angular_damping(b.raw, c);
  }
  Result<double> angular_damping(BodyId b) const {
    return get(tenon_body_get_angular_damping, b.raw);
  }
  Status apply_force(BodyId b, tenon_vec3 f, tenon_vec3 world_point) noexcept {
    return tenon_body_apply_force(b.raw, f, world_point);
  }
  Status apply_impulse(BodyId b, tenon_vec3 i, tenon_vec3 world_point) noexcept {
    return tenon_body_apply_impulse(b.raw, i, world_point);
  }
  Status apply_angular_impulse(BodyId b, tenon_vec3 i) noexcept {
    return tenon_body_apply_angular_impulse(b.raw, i);
  }
  /// False while the body sleeps (see set_sleep_settings()).
  Result<bool> awake(BodyId b) const { return flag(tenon_body_is_awake, b.raw); }
  /// Wakes the body with its group, or puts it to sleep now with what it touches.
  Status set_awake(BodyId b, bool awake) noexcept { return tenon_body_set_awake(b.raw, awake); }
  /// Whether the body may fall asleep (default true).
  Status set_sleep_allowed(BodyId b, bool allowed) noexcept {
    return tenon_body_set_sleep_allowed(b.raw, allowed);
  }
  Result<bool> sleep_allowed(BodyId b) const {
    return flag(tenon_body_get_sleep_allowed, b.raw);
  }
  /// Every body's pose, one bulk copy (resizes `out`).
  Status body_poses(std::vector<BodyPose>& out) const {
    size_t n = 0;
    tenon_result r = tenon_world_get_body_poses(id_, nullptr, nullptr, nullptr, 0, &n);
    if (r != TENON_RESULT_OK && r != TENON_RESULT_BUFFER_TOO_SMALL) return r;
    std::vector<tenon_body_id> ids(n);
    std::vector<tenon_vec3> ps(n);
    std::vector<tenon_quat> qs(n);
    r = tenon_world_get_body_poses(id_, ids.data(), ps.data(), qs.data(), n, &n);
    if (r != TENON_RESULT_OK) return r;
    out.resize(n);
    for (size_t i = 0; i < n; ++i) out[i] = BodyPose{BodyId{ids[i]}, ps[i], qs[i]};
    return TENON_RESULT_OK;
  }

  // ---- joints
  Result<JointId> create_joint(const tenon_joint_def& def) {
    JointId j;
    tenon_result r = tenon_joint_create(id_, &def, &j.raw);
    if (r != TENON_RESULT_OK) return r;
    return j;
  }
  /// A joint of `type` between `a` (null BodyId: the world) and `b`, whose frames coincide in
  /// the world at `anchor` (m) with joint axis `axis`.
  Result<JointId> create_joint(uint32_t type, BodyId a, BodyId b, tenon_vec3 anchor,
                               tenon_vec3 axis) {
    tenon_joint_def def = tenon_joint_def_default();
    def.type = type;
    def.body_a = a.raw;
    def.body_b = b.raw;
    tenon_result r = tenon_joint_def_set_world_frame(id_, &def, anchor, axis);
    if (r != TENON_RESULT_OK) return r;
    return create_joint(def);
  }
  Status destroy_joint(JointId j) noexcept { return tenon_joint_destroy(j.raw); }
  Result<double> joint_violation(JointId j) const { return get(tenon_joint_get_violation, j.raw); }
  Result<double> joint_coordinate(JointId j) const {
    return get(tenon_joint_get_coordinate, j.raw);
  }
  Result<double> joint_motor_impulse(JointId j) const {
    return get(tenon_joint_get_motor_impulse, j.raw);
  }
  Status set_motor(JointId j, tenon_motor m) noexcept { return tenon_joint_set_motor(j.raw, m); }
  /// A ball joint's servo target: frame B's rotation relative to frame A.
  Status set_motor_rotation(JointId j, tenon_quat q) noexcept {
    return tenon_joint_set_motor_rotation(j.raw, q);
  }
  Result<tenon_quat> motor_rotation(JointId j) const noexcept {
    return get(tenon_joint_get_motor_rotation, j.raw);
  }
  Status set_limits(JointId j, tenon_joint_limits l) noexcept { return tenon_joint_set_limits(j.raw, l); }
  Result<tenon_joint_limits> limits(JointId j) const noexcept { return get(tenon_joint_get_limits, j.raw); }
  /// The joint def's user_data.
  Result<uint64_t> user_data(JointId j) const { return get(tenon_joint_get_user_data, j.raw); }
  /// The joint's frames on body A (or the world) and on body B.
  Result<std::pair<tenon_joint_frame, tenon_joint_frame>> joint_frames(JointId j) const {
    std::pair<tenon_joint_frame, tenon_joint_frame> f{};
    tenon_result r = tenon_joint_get_frames(j.raw, &f.first, &f.second);
    if (r != TENON_RESULT_OK) return r;
    return f;
  }
  /// Makes the joint break when its mean force (N) or torque (N m) over a step exceeds these
  /// (tenon_joint_set_break_force(); INFINITY: never).
  Status set_break_force(JointId j, double force, double torque) noexcept {
    return tenon_joint_set_break_force(j.raw, force, torque);
  }
  /// The joint's break force and torque.
  Result<std::pair<double, double>> break_force(JointId j) const {
    std::pair<double, double> f{};
    tenon_result r = tenon_joint_get_break_force(j.raw, &f.first, &f.second);
    if (r != TENON_RESULT_OK) return r;
    return f;
  }
  /// The joints that broke in the last step, destroyed since (a world-owned view, valid until
  /// the next step).
  Result<View<tenon_joint_break>> joint_breaks() const { return view(tenon_world_get_joint_breaks); }
  /// Every live joint, in slot order, into `out` (resized; its capacity reused).
  Status joint_ids(std::vector<JointId>& out) {
    Status st = fill(joint_ids_, [&](tenon_joint_id* p, size_t cap, size_t* n) {
      return tenon_world_get_joint_ids(id_, p, cap, n);
    });
    out.resize(joint_ids_.size());
    for (size_t i = 0; i < out.size(); ++i) out[i].raw = joint_ids_[i];
    return st;
  }

  // ---- shapes and contacts
  Result<ShapeId> create_shape(BodyId b, const tenon_shape_def& def) {
    ShapeId s;
    tenon_result r = tenon_shape_create(b.raw, &def, &s.raw);
    if (r != TENON_RESULT_OK) return r;
    return s;
  }
  Status destroy_shape(ShapeId s) noexcept { return tenon_shape_destroy(s.raw); }
  /// The shape def's user_data: with a contact's or a ray hit's shape id, the game object.
  Result<uint64_t> user_data(ShapeId s) const { return get(tenon_shape_get_user_data, s.raw); }
  Status set_material(ShapeId s, tenon_material m) noexcept {
    return tenon_shape_set_material(s.raw, m);
  }
  /// The velocity of the shape's surface relative to its body, shape frame (m/s): a conveyor
  /// belt, a tank's tread (tenon_shape_set_surface_velocity()).
  Status set_surface_velocity(ShapeId s, tenon_vec3 v) noexcept {
    return tenon_shape_set_surface_velocity(s.raw, v);
  }
  Result<tenon_vec3> surface_velocity(ShapeId s) const {
    return get(tenon_shape_get_surface_velocity, s.raw);
  }
  Status set_filter(ShapeId s, uint32_t group, uint32_t mask) noexcept {
    return tenon_shape_set_filter(s.raw, group, mask);
  }
  /// The body's shapes in slot order (tenon_body_get_shapes()), into `out` (resized).
  Status shapes(BodyId b, std::vector<ShapeId>& out) {
    return fill_ids(out, [&](tenon_shape_id* p, size_t cap, size_t* n) {
      return tenon_body_get_shapes(b.raw, p, cap, n);
    });
  }
  /// The joints attached to the body, in the order they were created (tenon_body_get_joints()),
  /// into `out` (resized).
  Status joints(BodyId b, std::vector<JointId>& out) {
    Status st = fill(joint_ids_, [&](tenon_joint_id* p, size_t cap, size_t* n) {
      return tenon_body_get_joints(b.raw, p, cap, n);
    });
    out.resize(joint_ids_.size());
    for (size_t i = 0; i < out.size(); ++i) out[i].raw = joint_ids_[i];
    return st;
  }
  /// Makes the shape a sensor, a trigger volume, or solid again (tenon_shape_set_sensor()).
  Status set_sensor(ShapeId s, bool sensor) noexcept {
    return tenon_shape_set_sensor(s.raw, sensor ? 1u : 0u);
  }
  Result<bool> is_sensor(ShapeId s) const {
    Result<uint32_t> r = get(tenon_shape_get_sensor, s.raw);
    if (!r) return r.code();
    return r.value() == 1;
  }
  /// The shapes overlapping the sensor at the end of the last step
  /// (tenon_shape_get_sensor_overlaps()), into `out` (resized).
  Status sensor_overlaps(ShapeId sensor, std::vector<ShapeId>& out) {
    return fill_ids(out, [&](tenon_shape_id* p, size_t cap, size_t* n) {
      return tenon_shape_get_sensor_overlaps(sensor.raw, p, cap, n);
    });
  }
  /// Mass and inertia from the body's shapes (see tenon_body_set_mass_from_shapes()).
  Result<tenon_mass_properties> set_mass_from_shapes(BodyId b) {
    tenon_mass_properties mp{};
    tenon_result r = tenon_body_set_mass_from_shapes(b.raw, &mp);
    if (r != TENON_RESULT_OK) return r;
    return mp;
  }
  Status register_contact(const tenon_contact_def& def) noexcept {
    return tenon_world_register_contact(id_, &def);
  }
  /// The contacts of the last step (world-owned, valid until the next step).
  Result<View<tenon_contact>> contacts() const { return view(tenon_world_get_contact_view); }
  /// The contact begin/end events of the last step (world-owned, valid until the next step).
  Result<View<tenon_contact_event>> contact_events() const { return view(tenon_world_get_contact_events); }
  /// The bodies that moved in the last step, with their end poses
  /// (tenon_world_get_body_move_events()): sync these alone.
  Result<View<tenon_body_move_event>> body_move_events() const {
    return view(tenon_world_get_body_move_events);
  }
  /// The contact events per pair of shapes (tenon_world_get_shape_contact_events()).
  Result<View<tenon_shape_contact_event>> shape_contact_events() const {
    return view(tenon_world_get_shape_contact_events);
  }
  /// The sensor begin/end events of the last step (world-owned, valid until the next step).
  Result<View<tenon_sensor_event>> sensor_events() const { return view(tenon_world_get_sensor_events); }
  Result<tenon_contact_report> contact_report() const {
    return get(tenon_world_get_contact_report, id_);
  }
  /// The first shape a ray meets among those a shape of `group` and `mask` would touch
  /// (tenon_world_cast_ray()); an empty optional if none.
  Result<std::optional<tenon_ray_hit>> cast_ray(tenon_vec3 origin, tenon_vec3 direction,
                                                double max_distance, uint32_t group = 1,
                                                uint32_t mask = 0xffffffffu) {
    tenon_ray_hit hit{};
    tenon_result r =
        tenon_world_cast_ray(id_, origin, direction, max_distance, group, mask, &hit);
    if (r != TENON_RESULT_OK) return r;
    if (!hit.hit) return std::optional<tenon_ray_hit>();
    return std::optional<tenon_ray_hit>(hit);
  }
  /// Every shape a ray meets, nearest first (tenon_world_cast_ray_all()), into `out`
  /// (resized; its capacity reused).
  Status cast_ray_all(tenon_vec3 origin, tenon_vec3 direction, double max_distance,
                      std::vector<tenon_ray_hit>& out, uint32_t group = 1,
                      uint32_t mask = 0xffffffffu) {
    return fill(out, [&](tenon_ray_hit* p, size_t cap, size_t* n) {
      return tenon_world_cast_ray_all(id_, origin, direction, max_distance, group, mask, p, cap,
                                      n);
    });
  }
  /// The shapes whose bounding boxes overlap the box `min`..`max`
  /// (tenon_world_overlap_aabb()), into `out` (resized).
  Status overlap_aabb(tenon_vec3 min, tenon_vec3 max, std::vector<ShapeId>& out,
                      uint32_t group = 1, uint32_t mask = 0xffffffffu) {
    return fill_ids(out, [&](tenon_shape_id* p, size_t cap, size_t* n) {
      return tenon_world_overlap_aabb(id_, min, max, group, mask, p, cap, n);
    });
  }
  /// The shapes a solid shape `def`, placed as on a body at `position`, `rotation`, overlaps
  /// or touches (tenon_world_overlap_shape()), into `out` (resized).
  Status overlap_shape(const tenon_shape_def& def, tenon_vec3 position, tenon_quat rotation,
                       std::vector<ShapeId>& out) {
    return fill_ids(out, [&](tenon_shape_id* p, size_t cap, size_t* n) {
      return tenon_world_overlap_shape(id_, &def, position, rotation, p, cap, n);
    });
  }
  /// The first shape a solid shape `def` meets when swept from `position`, `rotation` along
  /// `direction` (tenon_world_cast_shape()); an empty optional if it moves freely.
  Result<std::optional<tenon_shape_cast_hit>> cast_shape(const tenon_shape_def& def,
                                                         tenon_vec3 position,
                                                         tenon_quat rotation,
                                                         tenon_vec3 direction,
                                                         double max_distance) {
    tenon_shape_cast_hit hit{};
    tenon_result r =
        tenon_world_cast_shape(id_, &def, position, rotation, direction, max_distance, &hit);
    if (r != TENON_RESULT_OK) return r;
    if (!hit.hit) return std::optional<tenon_shape_cast_hit>();
    return std::optional<tenon_shape_cast_hit>(hit);
  }

  // ---- world
  /// Steps the world. An exception the pre-solve hook threw is thrown again here (the step
  /// itself went on, the pair kept).
  Result<tenon_step_report> step(double dt) {
    tenon_step_report r{};
    tenon_result c = tenon_world_step(id_, dt, &r);
    if (pre_solve_ && pre_solve_->error) {
      std::rethrow_exception(std::exchange(pre_solve_->error, nullptr));
    }
    if (c != TENON_RESULT_OK) return c;
    return r;
  }
  /// The pre-solve hook (tenon_world_set_pre_solve(); an empty function removes it): it sees
  /// each pair of shapes detection found with contact points in a (sub)step and returns whether
  /// the pair makes them; it may change `pair.material` for this (sub)step. Called inside
  /// step(): calls on this world from it fail with TENON_RESULT_WORLD_LOCKED. The function
  /// moves with the World.
  using PreSolve = std::function<bool(tenon_pre_solve&)>;
  Status set_pre_solve(PreSolve hook) {
    if (!hook) {
      tenon_result r = tenon_world_set_pre_solve(id_, nullptr, nullptr);
      if (r == TENON_RESULT_OK) pre_solve_.reset();
      return r;
    }
    auto h = std::make_unique<Hook>();
    h->fn = std::move(hook);
    tenon_result r = tenon_world_set_pre_solve(id_, &World::pre_solve_trampoline, h.get());
    if (r == TENON_RESULT_OK) pre_solve_ = std::move(h);
    return r;
  }
  /// Draws the world as line segments for a debug view (tenon_world_debug_draw()): calls
  /// `segment(a, b, kind)` for each, before it returns; `flags` a mix of TENON_DRAW_SHAPES,
  /// TENON_DRAW_JOINTS and TENON_DRAW_CONTACTS. After an exception `segment` throws, the
  /// remaining segments are skipped and the exception is thrown again here.
  template <class F>
  Status debug_draw(F&& segment,
                    uint32_t flags = TENON_DRAW_SHAPES | TENON_DRAW_JOINTS | TENON_DRAW_CONTACTS,
                    double axis_length = 0.25, double impulse_scale = 0.01) const {
    struct Call {
      std::remove_reference_t<F>* f;
      std::exception_ptr error;
    } call{&segment, nullptr};
    tenon_result r = tenon_world_debug_draw(
        id_, flags, axis_length, impulse_scale,
        [](tenon_vec3 a, tenon_vec3 b, tenon_draw_kind kind, void* context) {
          Call* c = static_cast<Call*>(context);
          if (c->error) return;
          try {
            (*c->f)(a, b, kind);
          } catch (...) {
            c->error = std::current_exception();
          }
        },
        &call);
    if (call.error) std::rethrow_exception(call.error);
    return r;
  }
  Status set_gravity(tenon_vec3 g) noexcept { return tenon_world_set_gravity(id_, g); }
  Result<tenon_vec3> gravity() const { return get(tenon_world_get_gravity, id_); }
  Result<double> eps_p() const { return get(tenon_world_get_eps_p, id_); }
  /// Worker threads the islands are solved on: 1 (default) the caller's, 0 one per core.
  Status set_threads(uint32_t threads) noexcept { return tenon_world_set_threads(id_, threads); }
  Result<uint32_t> threads() const { return get(tenon_world_get_threads, id_); }

  /// Makes this world a copy of `other` (tenon_world_copy()): it then steps bit for bit as
  /// `other` would. This world keeps its own pre-solve hook. Save and restore:
  /// `snapshot.copy_from(world)`, later `world.copy_from(snapshot)`.
  Status copy_from(const World& other) noexcept { return tenon_world_copy(id_, other.id_); }
  /// A new world that is a copy of this one, without a pre-solve hook (a look ahead).
  Result<World> clone() const {
    Result<World> w = create();
    if (!w) return w;
    Status s = w.value().copy_from(*this);
    if (!s) return s.code();
    return w;
  }
  /// The id this world (a copy) gives an object of the world it was copied from
  /// (tenon_body_id_in_world() and its kin).
  Result<BodyId> id_of(BodyId other) const { return id_in(tenon_body_id_in_world, other); }
  Result<JointId> id_of(JointId other) const { return id_in(tenon_joint_id_in_world, other); }
  Result<ShapeId> id_of(ShapeId other) const { return id_in(tenon_shape_id_in_world, other); }
  /// Fill-reducing ordering of the factorizations (a tenon_ordering; default AMD).
  Status set_ordering(uint32_t ordering) noexcept {
    return tenon_world_set_ordering(id_, ordering);
  }
  Result<uint32_t> ordering() const { return get(tenon_world_get_ordering, id_); }
  Result<double> time() const { return get(tenon_world_get_time, id_); }
  Result<double> kinetic_energy() const { return get(tenon_world_get_kinetic_energy, id_); }
  Result<double> potential_energy() const { return get(tenon_world_get_potential_energy, id_); }
  Result<tenon_warnings> warnings() const { return get(tenon_world_get_warnings, id_); }
  /// When bodies at rest fall asleep (off by default; tenon_sleep_settings_default()).
  Status set_sleep_settings(const tenon_sleep_settings& s) noexcept {
    return tenon_world_set_sleep_settings(id_, s);
  }
  Result<tenon_sleep_settings> sleep_settings() const {
    return get(tenon_world_get_sleep_settings, id_);
  }
  Result<size_t> sleeping_body_count() const {
    return get(tenon_world_get_sleeping_body_count, id_);
  }

 private:
  // Calls `call(data, capacity, &count)` on `out`'s storage, once more with the size it asks
  // for if that is too small; `out` ends with the results (empty on error).
  template <class T, class F>
  static Status fill(std::vector<T>& out, F call) {
    size_t n = 0;
    out.resize(out.capacity());
    tenon_result r = call(out.data(), out.size(), &n);
    if (r == TENON_RESULT_BUFFER_TOO_SMALL) {
      out.resize(n);
      r = call(out.data(), out.size(), &n);
    }
    out.resize(r == TENON_RESULT_OK ? n : 0);
    return r;
  }
  // A world-owned view: `call(world, &data, &size)`.
  template <class T>
  Result<View<T>> view(tenon_result (*call)(tenon_world_id, const T**, size_t*)) const {
    View<T> v;
    tenon_result r = call(id_, &v.data, &v.size);
    if (r != TENON_RESULT_OK) return r;
    return v;
  }
  template <class F>
  Status fill_ids(std::vector<ShapeId>& out, F call) {
    Status st = fill(shape_ids_, call);
    out.resize(shape_ids_.size());
    for (size_t i = 0; i < out.size(); ++i) out[i].raw = shape_ids_[i];
    return st;
  }
  std::vector<tenon_shape_id> shape_ids_;
  std::vector<tenon_joint_id> joint_ids_;
  // The pre-solve hook on the heap (the library holds its address), and the first exception it
  // threw in the step being taken: none may unwind through the library.
  struct Hook {
    PreSolve fn;
    std::exception_ptr error;
  };
  static uint32_t pre_solve_trampoline(tenon_pre_solve* pair, void* context) noexcept {
    Hook* h = static_cast<Hook*>(context);
    try {
      return h->fn(*pair) ? 1u : 0u;
    } catch (...) {
      if (!h->error) h->error = std::current_exception();
      return 1u;
    }
  }
  std::unique_ptr<Hook> pre_solve_;
  explicit World(tenon_world_id id) noexcept : id_(id) {}
  template <class Raw>
  Result<Id<Raw>> id_in(tenon_result (*fn)(Raw, tenon_world_id, Raw*), Id<Raw> other) const {
    Id<Raw> out;
    tenon_result r = fn(other.raw, id_, &out.raw);
    if (r != TENON_RESULT_OK) return r;
    return out;
  }
  template <class T, class Id>
  static Result<T> get(tenon_result (*fn)(Id, T*), Id id) {
    T v{};
    tenon_result r = fn(id, &v);
    if (r != TENON_RESULT_OK) return r;
    return v;
  }
  /// A getter of a 0/1 flag, as a bool.
  template <class Id>
  static Result<bool> flag(tenon_result (*fn)(Id, uint32_t*), Id id) {
    Result<uint32_t> v = get(fn, id);
    if (!v) return v.code();
    return v.value() == 1;
  }
  tenon_world_id id_{};
};

}  // namespace tenon

#endif  // TENON_HPP
