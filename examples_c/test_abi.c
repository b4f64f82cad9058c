/* test_abi.c - CTest test of the C ABI as C sees it: struct sizes, version, error codes for bad
 * input (NULL, NaN, stale and foreign ids, destroyed worlds), and that failed calls change
 * nothing. Exits non-zero on the first failed check. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tenon.h"

static_assert(sizeof(tenon_vec3) == 24, "tenon_vec3");
static_assert(sizeof(tenon_quat) == 32, "tenon_quat");
static_assert(sizeof(tenon_world_id) == 4, "tenon_world_id");
static_assert(sizeof(tenon_body_id) == 8, "tenon_body_id");
static_assert(sizeof(tenon_joint_id) == 8, "tenon_joint_id");
static_assert(sizeof(tenon_mass_properties) == 56, "tenon_mass_properties");
static_assert(sizeof(tenon_world_def) == 56, "tenon_world_def");
static_assert(sizeof(tenon_body_def) == 200, "tenon_body_def");
static_assert(sizeof(tenon_joint_frame) == 56, "tenon_joint_frame");
static_assert(sizeof(tenon_motor) == 48, "tenon_motor");
static_assert(sizeof(tenon_joint_def) == 272, "tenon_joint_def");
static_assert(sizeof(tenon_joint_limits) == 32, "tenon_joint_limits");
static_assert(sizeof(tenon_step_report) == 88, "tenon_step_report");
static_assert(sizeof(tenon_island_report) == 96, "tenon_island_report");
static_assert(sizeof(tenon_warnings) == 40, "tenon_warnings");
static_assert(sizeof(tenon_result) == 4, "tenon_result");
static_assert(sizeof(tenon_shape_id) == 8, "tenon_shape_id");
static_assert(sizeof(tenon_material) == 40, "tenon_material");
static_assert(sizeof(tenon_shape_def) == 240, "tenon_shape_def");
static_assert(sizeof(tenon_contact) == 144, "tenon_contact");
static_assert(sizeof(tenon_contact_event) == 24, "tenon_contact_event");
static_assert(sizeof(tenon_sensor_event) == 24, "tenon_sensor_event");
static_assert(sizeof(tenon_contact_def) == 120, "tenon_contact_def");
static_assert(sizeof(tenon_contact_settings) == 40, "tenon_contact_settings");
static_assert(sizeof(tenon_contact_report) == 80, "tenon_contact_report");
static_assert(sizeof(tenon_ray_hit) == 80, "tenon_ray_hit");
static_assert(sizeof(tenon_pre_solve) == 168, "tenon_pre_solve");
static_assert(sizeof(tenon_joint_break) == 40, "tenon_joint_break");

static int failures = 0;

#define EXPECT(cond)                                                          \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                             \
    }                                                                         \
  } while (0)

#define EXPECT_CODE(call, code)                                                        \
  do {                                                                                 \
    tenon_result r_ = (call);                                                          \
    if (r_ != (code)) {                                                                \
      char m_[256];                                                                    \
      tenon_last_error_message(m_, sizeof m_, NULL);                                   \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s (%s)\n", __FILE__, __LINE__, \
              #call, tenon_result_str(r_), tenon_result_str(code), m_);                \
      ++failures;                                                                      \
    }                                                                                  \
  } while (0)

static const tenon_vec3 ZERO = {0, 0, 0};
static const tenon_quat IDENTITY = {0, 0, 0, 1};

int main(void) {
  /* version: macros, string macro and the library agree */
  char v[64];
  snprintf(v, sizeof v, "%d.%d.%d", TENON_VERSION_MAJOR, TENON_VERSION_MINOR, TENON_VERSION_PATCH);
  EXPECT(strcmp(v, TENON_VERSION_STRING) == 0);
  EXPECT(strcmp(v, tenon_version()) == 0);
  EXPECT(TENON_VERSION_NUMBER == TENON_VERSION_MAJOR * 10000 + TENON_VERSION_MINOR * 100 + TENON_VERSION_PATCH);
  EXPECT(tenon_version_number() == TENON_VERSION_NUMBER);
  /* the compatibility rule: the same ABI line (major, before 1.0 minor) and no older */
  EXPECT(TENON_VERSION_COMPATIBLE(tenon_version_number()));
  EXPECT(TENON_VERSION_COMPATIBLE(TENON_VERSION_NUMBER + 1u));
  EXPECT(!TENON_VERSION_COMPATIBLE(TENON_VERSION_NUMBER + 10000u));
  if (TENON_VERSION_MAJOR == 0) {
    EXPECT(!TENON_VERSION_COMPATIBLE(TENON_VERSION_NUMBER + 100u));
    snprintf(v, sizeof v, "libtenon.so.0.%d", TENON_VERSION_MINOR);
  } else {
    EXPECT(TENON_VERSION_COMPATIBLE(TENON_VERSION_NUMBER + 100u));
    snprintf(v, sizeof v, "libtenon.so.%d", TENON_VERSION_MAJOR);
  }
  EXPECT(strcmp(v, TENON_SONAME) == 0);
  if (TENON_VERSION_PATCH > 0) EXPECT(!TENON_VERSION_COMPATIBLE(TENON_VERSION_NUMBER - 1u));
  if (TENON_VERSION_MINOR > 0) EXPECT(!TENON_VERSION_COMPATIBLE(TENON_VERSION_NUMBER - 100u));
  EXPECT(strcmp(tenon_result_str(TENON_RESULT_INVALID_HANDLE), "TENON_RESULT_INVALID_HANDLE") == 0);
  EXPECT(strcmp(tenon_result_str(4242), "TENON_RESULT_UNKNOWN") == 0);

  /* worlds: NULL and uninitialized defs */
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world = {0, 0};
  EXPECT_CODE(tenon_world_create(NULL, &world), TENON_RESULT_NULL_POINTER);
  EXPECT_CODE(tenon_world_create(&wd, NULL), TENON_RESULT_NULL_POINTER);
  tenon_world_def zero_def;
  memset(&zero_def, 0, sizeof zero_def);
  EXPECT_CODE(tenon_world_create(&zero_def, &world), TENON_RESULT_DEF_NOT_INITIALIZED);
  wd.gravity.z = NAN;
  EXPECT_CODE(tenon_world_create(&wd, &world), TENON_RESULT_NON_FINITE);
  EXPECT(world.index1 == 0); /* out-params untouched on failure */
  wd = tenon_world_def_default();
  EXPECT_CODE(tenon_world_create(&wd, &world), TENON_RESULT_OK);

  /* bodies: bad defs are rejected and create nothing */
  tenon_body_def bd = tenon_body_def_default();
  tenon_body_id body = {0, 0, 0}, junk = {0, 0, 0};
  bd.position = (tenon_vec3){1, 2, 3};
  EXPECT_CODE(tenon_body_create(world, &bd, &body), TENON_RESULT_OK);
  tenon_body_def bad = bd;
  bad.mass_properties.mass = 0.0;
  EXPECT_CODE(tenon_body_create(world, &bad, &junk), TENON_RESULT_INVALID_MASS);
  bad = bd;
  bad.rotation = (tenon_quat){0, 0, 0, 3};
  EXPECT_CODE(tenon_body_create(world, &bad, &junk), TENON_RESULT_INVALID_ROTATION);
  bad = bd;
  bad.linear_velocity.y = INFINITY;
  EXPECT_CODE(tenon_body_create(world, &bad, &junk), TENON_RESULT_NON_FINITE);
  bad = bd;
  bad.internal_magic = 0;
  EXPECT_CODE(tenon_body_create(world, &bad, &junk), TENON_RESULT_DEF_NOT_INITIALIZED);
  EXPECT(junk.index1 == 0);
  size_t count = 0;
  EXPECT_CODE(tenon_world_get_body_count(world, &count), TENON_RESULT_OK);
  EXPECT(count == 1);

  /* NaN input is rejected and the body keeps its pose */
  EXPECT_CODE(tenon_body_set_pose(body, (tenon_vec3){NAN, 0, 0}, IDENTITY), TENON_RESULT_NON_FINITE);
  EXPECT_CODE(tenon_body_apply_force(body, (tenon_vec3){0, NAN, 0}, ZERO), TENON_RESULT_NON_FINITE);
  tenon_vec3 p = ZERO;
  EXPECT_CODE(tenon_body_get_position(body, &p), TENON_RESULT_OK);
  EXPECT(p.x == 1 && p.y == 2 && p.z == 3);
  EXPECT_CODE(tenon_body_get_position(body, NULL), TENON_RESULT_NULL_POINTER);
  EXPECT_CODE(tenon_world_step(world, NAN, NULL), TENON_RESULT_NON_FINITE);
  double t = -1;
  EXPECT_CODE(tenon_world_get_time(world, &t), TENON_RESULT_OK);
  EXPECT(t == 0.0);

  /* the last error message explains the failure, snprintf-style */
  EXPECT_CODE(tenon_world_set_eps_p(world, -1.0), TENON_RESULT_INVALID_ARGUMENT);
  char msg[8];
  size_t len = 0;
  EXPECT_CODE(tenon_last_error_message(msg, sizeof msg, &len), TENON_RESULT_OK);
  EXPECT(len > sizeof msg && strlen(msg) == sizeof msg - 1);

  /* joints: a body to itself, a destroyed body's joints */
  tenon_body_id b2;
  bd.position = (tenon_vec3){2, 2, 3};
  EXPECT_CODE(tenon_body_create(world, &bd, &b2), TENON_RESULT_OK);
  tenon_joint_def jd = tenon_joint_def_default();
  jd.body_a = body;
  jd.body_b = body;
  tenon_joint_id joint = {0, 0, 0};
  EXPECT_CODE(tenon_joint_create(world, &jd, &joint), TENON_RESULT_SAME_BODY);
  jd.body_b = b2;
  jd.type = TENON_JOINT_TYPE_HINGE;
  EXPECT_CODE(tenon_joint_def_set_world_frame(world, &jd, (tenon_vec3){1.5, 2, 3}, (tenon_vec3){0, 0, 1}),
              TENON_RESULT_OK);
  EXPECT_CODE(tenon_joint_create(world, &jd, &joint), TENON_RESULT_OK);
  EXPECT_CODE(tenon_world_step(world, 1.0 / 60.0, NULL), TENON_RESULT_OK);
  double c = 1.0;
  EXPECT_CODE(tenon_joint_get_violation(joint, &c), TENON_RESULT_OK);
  EXPECT(c <= 1e-9);
  /* limits: none by default (infinite bounds); a setter that rejects bad ranges unchanged */
  EXPECT(isinf(jd.limits.lower) && jd.limits.lower < 0 && isinf(jd.limits.swing));
  tenon_joint_limits lim = {-0.5, 0.5, INFINITY, 0.0}, got_lim;
  EXPECT_CODE(tenon_joint_set_limits(joint, lim), TENON_RESULT_OK);
  tenon_joint_limits bad_lim = lim;
  bad_lim.lower = 1.0;
  EXPECT_CODE(tenon_joint_set_limits(joint, bad_lim), TENON_RESULT_INVALID_ARGUMENT);
  bad_lim = lim;
  bad_lim.swing = 0.3; /* a cone on a hinge */
  EXPECT_CODE(tenon_joint_set_limits(joint, bad_lim), TENON_RESULT_WRONG_JOINT_TYPE);
  EXPECT_CODE(tenon_joint_get_limits(joint, &got_lim), TENON_RESULT_OK);
  EXPECT(got_lim.lower == -0.5 && got_lim.upper == 0.5 && isinf(got_lim.swing));
  EXPECT_CODE(tenon_world_step(world, 1.0 / 60.0, NULL), TENON_RESULT_OK);
  EXPECT_CODE(tenon_joint_get_violation(joint, &c), TENON_RESULT_OK);
  EXPECT(c <= 1e-9);
  /* motors: hard by default (INFINITY); a force limit must be > 0, so a motor built field by
   * field without one is rejected, unchanged */
  EXPECT(isinf(jd.motor.max_force) && jd.motor.max_force > 0);
  tenon_motor motor = {0.0, 1.0, TENON_MOTOR_MODE_VELOCITY, 0, 0.0, 0.0, 0.0}, got_motor;
  EXPECT_CODE(tenon_joint_set_motor(joint, motor), TENON_RESULT_INVALID_ARGUMENT);
  motor.max_force = NAN;
  EXPECT_CODE(tenon_joint_set_motor(joint, motor), TENON_RESULT_NON_FINITE);
  motor.max_force = 2.5;
  motor.reserved = 1;
  EXPECT_CODE(tenon_joint_set_motor(joint, motor), TENON_RESULT_INVALID_ARGUMENT);
  EXPECT_CODE(tenon_joint_get_motor(joint, &got_motor), TENON_RESULT_OK);
  EXPECT(got_motor.mode == TENON_MOTOR_MODE_OFF && isinf(got_motor.max_force));
  motor.reserved = 0;
  EXPECT_CODE(tenon_joint_set_motor(joint, motor), TENON_RESULT_OK);
  EXPECT_CODE(tenon_joint_get_motor(joint, &got_motor), TENON_RESULT_OK);
  EXPECT(got_motor.mode == TENON_MOTOR_MODE_VELOCITY && got_motor.max_force == 2.5);
  EXPECT_CODE(tenon_world_step(world, 1.0 / 60.0, NULL), TENON_RESULT_OK);
  EXPECT_CODE(tenon_joint_get_violation(joint, &c), TENON_RESULT_OK);
  EXPECT(c <= 1e-9);
  double motor_impulse = NAN;
  EXPECT_CODE(tenon_joint_get_motor_impulse(joint, &motor_impulse), TENON_RESULT_OK);
  EXPECT(fabs(motor_impulse) <= 2.5 / 60.0 * (1 + 1e-9));
  tenon_motor off = {0}; /* switched off with an all-zero struct */
  EXPECT_CODE(tenon_joint_set_motor(joint, off), TENON_RESULT_OK);
  EXPECT_CODE(tenon_joint_get_motor(joint, &got_motor), TENON_RESULT_OK);
  EXPECT(got_motor.mode == TENON_MOTOR_MODE_OFF && isinf(got_motor.max_force));
  EXPECT_CODE(tenon_world_step(world, 1.0 / 60.0, NULL), TENON_RESULT_OK);
  EXPECT_CODE(tenon_joint_get_motor_impulse(joint, &motor_impulse), TENON_RESULT_OK);
  EXPECT(motor_impulse == 0.0);
  EXPECT_CODE(tenon_body_destroy(body), TENON_RESULT_OK); /* also destroys the joint */
  EXPECT_CODE(tenon_joint_get_violation(joint, &c), TENON_RESULT_INVALID_HANDLE);

  /* a stale body id: its slot reused by a new body */
  EXPECT_CODE(tenon_body_get_position(body, &p), TENON_RESULT_INVALID_HANDLE);
  tenon_body_id b3;
  EXPECT_CODE(tenon_body_create(world, &bd, &b3), TENON_RESULT_OK);
  EXPECT(b3.index1 == body.index1 && b3.generation != body.generation);
  EXPECT_CODE(tenon_body_destroy(body), TENON_RESULT_INVALID_HANDLE);
  tenon_body_id null_body = {0, 0, 0};
  EXPECT_CODE(tenon_body_get_position(null_body, &p), TENON_RESULT_INVALID_HANDLE);

  /* bulk copy: too small reports the needed count */
  size_t n = 0;
  EXPECT_CODE(tenon_world_get_body_poses(world, NULL, NULL, NULL, 0, &n), TENON_RESULT_BUFFER_TOO_SMALL);
  EXPECT(n == 2);
  tenon_body_id ids[4];
  tenon_vec3 pos[4];
  tenon_quat rot[4];
  EXPECT_CODE(tenon_world_get_body_poses(world, ids, pos, rot, 4, &n), TENON_RESULT_OK);
  EXPECT(n == 2 && ids[0].index1 != 0);

  /* another world's body; a destroyed world */
  tenon_world_id other;
  EXPECT_CODE(tenon_world_create(&wd, &other), TENON_RESULT_OK);
  tenon_body_id foreign;
  EXPECT_CODE(tenon_body_create(other, &bd, &foreign), TENON_RESULT_OK);
  jd = tenon_joint_def_default();
  jd.body_a = b2;
  jd.body_b = foreign;
  EXPECT_CODE(tenon_joint_create(world, &jd, &joint), TENON_RESULT_WRONG_WORLD);
  EXPECT_CODE(tenon_world_destroy(other), TENON_RESULT_OK);
  EXPECT_CODE(tenon_world_destroy(other), TENON_RESULT_WORLD_DESTROYED);
  EXPECT_CODE(tenon_body_get_position(foreign, &p), TENON_RESULT_WORLD_DESTROYED);
  EXPECT_CODE(tenon_world_step(other, 0.01, NULL), TENON_RESULT_WORLD_DESTROYED);

  EXPECT_CODE(tenon_world_destroy(world), TENON_RESULT_OK);
  if (failures) {
    fprintf(stderr, "%d checks failed\n", failures);
    return 1;
  }
  printf("OK: every C-ABI check passed\n");
  return 0;
}
