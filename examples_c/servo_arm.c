/* servo_arm.c - ball-joint servos (tenon_joint_set_motor_rotation): a two-link arm whose
 * shoulder is a hard servo following a trajectory exactly, and whose wrist is a force-limited
 * servo, a muscle of 2 N m about each axis.
 *
 * The upper arm (1 m, 2 kg) hangs on a ball joint at the origin, the forearm (1 m, 1 kg) on a
 * ball joint at its end. Each step the game sets the shoulder's target: the upper arm sweeps a
 * cone of 0.4 rad about the vertical at 1 rad/s. The wrist is told to hold the forearm straight
 * (its frames aligned).
 *
 * Checks: after every step the shoulder is at its target within 2e-9 rad and every joint row
 * within eps_p; the wrist's torque never exceeds 2 N m about an axis (sqrt(3) x 2 N m in all);
 * bad targets are refused and change nothing. Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

/* q1 * q2 (x y z w) */
static tenon_quat mul(tenon_quat a, tenon_quat b) {
  return (tenon_quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static tenon_quat about(double x, double y, double z, double angle) {
  double s = sin(0.5 * angle);
  return (tenon_quat){s * x, s * y, s * z, cos(0.5 * angle)};
}

/* the angle between two unit quaternions (rad) */
static double angle_between(tenon_quat a, tenon_quat b) {
  double d = fabs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
  tenon_quat c = {a.w * b.x - a.x * b.w - a.y * b.z + a.z * b.y,
                  a.w * b.y + a.x * b.z - a.y * b.w - a.z * b.x,
                  a.w * b.z - a.x * b.y + a.y * b.x - a.z * b.w, 0.0};
  return 2.0 * atan2(sqrt(c.x * c.x + c.y * c.y + c.z * c.z), d);
}

static int link(tenon_world_id world, double z, double mass, tenon_body_id *out) {
  tenon_body_def def = tenon_body_def_default();
  def.position = (tenon_vec3){0, 0, z};
  CHECK(tenon_mass_solid_box(mass, (tenon_vec3){0.02, 0.02, 0.5}, &def.mass_properties));
  CHECK(tenon_body_create(world, &def, out));
  return 0;
}

static int ball(tenon_world_id world, tenon_body_id a, tenon_body_id b, double z,
                double max_torque, tenon_joint_id *out) {
  tenon_joint_def def = tenon_joint_def_default();
  def.type = TENON_JOINT_TYPE_BALL;
  def.body_a = a;
  def.body_b = b;
  /* frames along the world's axes: the relative rotation is the bodies' relative rotation */
  CHECK(tenon_joint_def_set_world_frame(world, &def, (tenon_vec3){0, 0, z},
                                        (tenon_vec3){1, 0, 0}));
  def.motor.mode = TENON_MOTOR_MODE_POSITION; /* a servo; max_force INFINITY: hard */
  def.motor.max_force = max_torque;
  CHECK(tenon_joint_create(world, &def, out));
  return 0;
}

int main(void) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  tenon_body_id upper, fore, none = {0, 0, 0};
  tenon_joint_id shoulder, wrist;
  if (link(world, -0.5, 2.0, &upper) || link(world, -1.5, 1.0, &fore)) return 1;
  if (ball(world, none, upper, 0.0, INFINITY, &shoulder)) return 1;
  if (ball(world, upper, fore, -1.0, 2.0, &wrist)) return 1;

  /* bad targets: refused, nothing changed */
  tenon_quat got;
  EXPECT(tenon_joint_set_motor_rotation(shoulder, (tenon_quat){0, 0, 0, 2}) ==
             TENON_RESULT_INVALID_ROTATION, "a quaternion of norm 2 was accepted");
  EXPECT(tenon_joint_set_motor_rotation(shoulder, (tenon_quat){NAN, 0, 0, 1}) ==
             TENON_RESULT_NON_FINITE, "a NaN target was accepted");
  CHECK(tenon_joint_get_motor_rotation(shoulder, &got));
  EXPECT(got.w == 1.0, "a refused target changed the servo");

  const double h = 1.0 / 60.0;
  double eps_p = 0.0, worst_off = 0.0, most_wrist = 0.0;
  CHECK(tenon_world_get_eps_p(world, &eps_p));
  for (int k = 1; k <= 240; ++k) {
    /* tilted 0.4 rad from the vertical, turning about it at 1 rad/s */
    tenon_quat target = mul(about(0, 0, 1, k * h), about(1, 0, 0, 0.4));
    CHECK(tenon_joint_set_motor_rotation(shoulder, target));
    tenon_step_report r;
    CHECK(tenon_world_step(world, h, &r));
    EXPECT(r.converged && r.max_violation <= eps_p, "step %d: joints open by %g", k,
           r.max_violation);
    /* the shoulder's frames are the world's axes: the upper arm's rotation is the relative
     * rotation */
    tenon_quat q;
    CHECK(tenon_body_get_rotation(upper, &q));
    double off = angle_between(q, target);
    if (off > worst_off) worst_off = off;
    double impulse;
    CHECK(tenon_joint_get_motor_impulse(wrist, &impulse));
    if (impulse / h > most_wrist) most_wrist = impulse / h;
    if (k % 60 == 0) {
      tenon_vec3 p;
      CHECK(tenon_body_get_position(fore, &p));
      printf("t = %.0f s  shoulder off its target by %.1e rad  forearm at (%+.3f, %+.3f, %+.3f)"
             "  wrist torque %.3f N m\n", k * h, off, p.x, p.y, p.z, impulse / h);
    }
  }
  EXPECT(worst_off <= 2e-9, "the shoulder strayed %g rad from its target", worst_off);
  EXPECT(most_wrist <= sqrt(3.0) * 2.0 * (1 + 1e-9) && most_wrist > 0.1,
         "wrist torque up to %g N m", most_wrist);
  CHECK(tenon_world_destroy(world));
  printf("OK: the shoulder within %.1e rad of its target at every step, the wrist's torque up "
         "to %.3f N m (its bound: 2 N m per axis)\n", worst_off, most_wrist);
  return 0;
}
