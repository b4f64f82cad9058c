/* joint_friction.c - force-limited motors: a torque-limited motor spinning up a flywheel, and
 * joint friction (a velocity motor at 0 rad/s with a torque limit) holding a bar.
 *
 * 1. A 4 kg cube of 1 m (inertia 2/3 kg m^2) on a hinge through its centre, driven towards
 *    10 rad/s by a motor limited to 2 N m: it must spin up at exactly 3 rad/s^2 and then hold
 *    10 rad/s. Exits non-zero if the speed is off by more than 1e-9 rad/s at any step, or the
 *    motor's torque (tenon_joint_get_motor_impulse over the step) is not 2 N m while it speeds up.
 * 2. A 2 kg, 1 m bar held horizontal by a hinge at its end: gravity pulls with 9.81 N m about
 *    the hinge. With friction of 10.3 N m it must not move (1e-9 rad); with 4.9 N m it falls.
 * 3. The cube on a ball joint at its centre, spinning at 5 rad/s about its x axis, braked by
 *    4 N m of ball-joint friction: it must slow at exactly 6 rad/s^2 and stop after 5/6 s
 *    without springing back (1e-9 rad/s); a velocity motor at another speed on a ball joint
 *    is rejected (a ball joint's motor is friction or a servo to a target rotation). */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

static tenon_result hinge(tenon_world_id world, tenon_body_id body, tenon_vec3 at, tenon_vec3 axis,
                          tenon_motor motor, tenon_joint_id *out) {
  tenon_joint_def def = tenon_joint_def_default();
  def.type = TENON_JOINT_TYPE_HINGE;
  def.body_b = body; /* body A: the world */
  tenon_result res = tenon_joint_def_set_world_frame(world, &def, at, axis);
  if (res != TENON_RESULT_OK) return res;
  def.motor = motor;
  return tenon_joint_create(world, &def, out);
}

/* Runs the bar with `friction` (N m) for 2 s; returns its hinge angle in *angle. */
static int bar_with_friction(double friction, double *angle) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  tenon_body_def bd = tenon_body_def_default();
  bd.position = (tenon_vec3){0.5, 0, 0};
  CHECK(tenon_mass_solid_box(2.0, (tenon_vec3){0.5, 0.01, 0.01}, &bd.mass_properties));
  tenon_body_id bar;
  CHECK(tenon_body_create(world, &bd, &bar));
  tenon_motor m = tenon_joint_def_default().motor;
  m.mode = TENON_MOTOR_MODE_VELOCITY;
  m.target_velocity = 0.0;
  m.max_force = friction;
  tenon_joint_id j;
  CHECK(hinge(world, bar, (tenon_vec3){0, 0, 0}, (tenon_vec3){0, 1, 0}, m, &j));
  for (int k = 0; k < 120; ++k) {
    tenon_step_report r;
    CHECK(tenon_world_step(world, 1.0 / 60.0, &r));
    EXPECT(r.converged && r.max_violation < 1e-9, "bar step %d: joint error %g", k, r.max_violation);
  }
  CHECK(tenon_joint_get_coordinate(j, angle));
  CHECK(tenon_world_destroy(world));
  return 0;
}

/* Part 3: ball-joint friction braking a spinning cube. */
static int spinning_cube(void) {
  tenon_world_def wd = tenon_world_def_default();
  wd.gravity = (tenon_vec3){0, 0, 0};
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  tenon_body_def bd = tenon_body_def_default();
  bd.angular_velocity = (tenon_vec3){5.0, 0, 0};
  CHECK(tenon_mass_solid_box(4.0, (tenon_vec3){0.5, 0.5, 0.5}, &bd.mass_properties));
  tenon_body_id cube;
  CHECK(tenon_body_create(world, &bd, &cube));
  tenon_joint_def def = tenon_joint_def_default(); /* frames at the centre, body A the world */
  def.type = TENON_JOINT_TYPE_BALL;
  def.body_b = cube;
  def.motor.mode = TENON_MOTOR_MODE_VELOCITY;
  def.motor.target_velocity = 1.0;
  def.motor.max_force = 4.0;
  tenon_joint_id j;
  EXPECT(tenon_joint_create(world, &def, &j) == TENON_RESULT_WRONG_JOINT_TYPE,
         "a velocity motor at 1 rad/s on a ball joint was accepted");
  def.motor.target_velocity = 0.0; /* at 0 rad/s: friction */
  CHECK(tenon_joint_create(world, &def, &j));
  const double h = 1.0 / 60.0, inertia = 4.0 * 0.5 / 3.0;
  double worst = 0.0;
  for (int k = 1; k <= 90; ++k) {
    tenon_step_report r;
    CHECK(tenon_world_step(world, h, &r));
    EXPECT(r.converged && r.max_violation < 1e-9, "cube step %d: joint error %g", k, r.max_violation);
    tenon_vec3 w;
    CHECK(tenon_body_get_angular_velocity(cube, &w));
    double expected = fmax(5.0 - 4.0 / inertia * k * h, 0.0);
    worst = fmax(worst, fabs(w.x - expected) + fabs(w.y) + fabs(w.z));
    double impulse;
    CHECK(tenon_joint_get_motor_impulse(j, &impulse));
    if (k < 50) EXPECT(fabs(impulse / h - 4.0) < 1e-9, "step %d: friction %g N m", k, impulse / h);
    if (k % 15 == 0) printf("  ball friction t = %.2f s: %.9f rad/s\n", k * h, w.x);
  }
  CHECK(tenon_world_destroy(world));
  EXPECT(worst < 1e-9, "spinning cube off by %g rad/s", worst);
  return 0;
}

int main(void) {
  printf("Tenon %s: force-limited motors and joint friction\n", tenon_version());
  tenon_world_def wd = tenon_world_def_default();
  wd.gravity = (tenon_vec3){0, 0, 0};
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  tenon_body_def bd = tenon_body_def_default();
  CHECK(tenon_mass_solid_box(4.0, (tenon_vec3){0.5, 0.5, 0.5}, &bd.mass_properties));
  tenon_body_id wheel;
  CHECK(tenon_body_create(world, &bd, &wheel));
  tenon_motor m = tenon_joint_def_default().motor; /* max_force INFINITY: hard */
  m.mode = TENON_MOTOR_MODE_VELOCITY;
  m.target_velocity = 10.0;
  m.max_force = 2.0;
  tenon_joint_id j;
  CHECK(hinge(world, wheel, (tenon_vec3){0, 0, 0}, (tenon_vec3){1, 0, 0}, m, &j));
  const double h = 1.0 / 60.0, inertia = 4.0 * 0.5 / 3.0;
  double worst = 0.0;
  for (int k = 1; k <= 300; ++k) {
    CHECK(tenon_world_step(world, h, NULL));
    tenon_vec3 w;
    CHECK(tenon_body_get_angular_velocity(wheel, &w));
    double expected = fmin(2.0 * k * h / inertia, 10.0);
    worst = fmax(worst, fabs(w.x - expected));
    double impulse;
    CHECK(tenon_joint_get_motor_impulse(j, &impulse));
    /* at most 2 N m; exactly 2 N m while it speeds up (until 10 rad/s after 200 steps) */
    EXPECT(fabs(impulse / h) <= 2.0 * (1 + 1e-9), "motor torque %g N m", impulse / h);
    if (k < 200) EXPECT(fabs(impulse / h - 2.0) < 1e-9, "step %d: motor torque %g N m", k, impulse / h);
    if (k % 60 == 0) printf("  flywheel t = %.0f s: %.9f rad/s\n", k * h, w.x);
  }
  CHECK(tenon_world_destroy(world));
  EXPECT(worst < 1e-9, "flywheel speed off by %g rad/s", worst);

  double held = 1.0, fell = 0.0;
  if (bar_with_friction(1.05 * 9.81, &held) != 0) return 1;
  if (bar_with_friction(0.5 * 9.81, &fell) != 0) return 1;
  printf("  bar after 2 s: friction 10.3 N m: %.2e rad, friction 4.9 N m: %.3f rad\n", held, fell);
  EXPECT(fabs(held) < 1e-9, "held bar moved %g rad", held);
  EXPECT(fabs(fell) > 1.0, "bar with too little friction only turned %g rad", fell);
  if (spinning_cube() != 0) return 1;
  printf("OK\n");
  return 0;
}
