/* damped_pendulum.c - damping through the C ABI: a lamp on a 1 m chain calmed by air drag, and
 * a crate falling at its terminal speed.
 *
 * The lamp (a ball joint, 0.05 rad from the vertical) has linear and angular damping c = 0.2 1/s:
 * every mode of a body damped equally in both decays as exp(-c t / 2). Exits non-zero if the
 * joint leaves eps_p in any step, if the swing's amplitude after 9 periods is not within 0.5 %
 * of exp(-c t / 2) of the first, if the crate (c = 2 1/s) does not fall at g / c (the fixed
 * point of gravity then the implicit drag v / (1 + h c)), or if bad coefficients are not
 * refused with the value left as it was. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

int main(void) {
  tenon_world_def world_def = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&world_def, &world));
  const double dt = 1.0 / 60.0, c = 0.2, g = 9.81;

  /* the lamp: 1 kg, 5 cm radius, 1 m below the pivot, 0.05 rad out */
  tenon_body_def lamp_def = tenon_body_def_default();
  lamp_def.position = (tenon_vec3){sin(0.05), 0.0, -cos(0.05)};
  CHECK(tenon_mass_solid_sphere(1.0, 0.05, &lamp_def.mass_properties));
  lamp_def.linear_damping = c;
  lamp_def.angular_damping = c;
  tenon_body_id lamp;
  CHECK(tenon_body_create(world, &lamp_def, &lamp));
  tenon_joint_def chain_def = tenon_joint_def_default();
  chain_def.type = TENON_JOINT_TYPE_BALL;
  chain_def.body_b = lamp;
  CHECK(tenon_joint_def_set_world_frame(world, &chain_def, (tenon_vec3){0, 0, 0},
                                        (tenon_vec3){1, 0, 0}));
  tenon_joint_id chain;
  CHECK(tenon_joint_create(world, &chain_def, &chain));

  /* the crate: falls from 1 km, far from the lamp */
  tenon_body_def crate_def = tenon_body_def_default();
  crate_def.position = (tenon_vec3){100.0, 0.0, 1000.0};
  crate_def.linear_damping = 2.0;
  tenon_body_id crate;
  CHECK(tenon_body_create(world, &crate_def, &crate));

  double eps_p;
  CHECK(tenon_world_get_eps_p(world, &eps_p));
  /* the first and last swings' peaks (local maxima of the angle) and their times, over 10
   * periods of 2 pi sqrt(L / g) = 2.006 s */
  const int steps = 1210;
  double first = 0.0, last = 0.0, t_first = 0.0, t_last = 0.0, worst = 0.0;
  double before = 0.0, prev = 0.05;
  for (int k = 1; k <= steps; ++k) {
    tenon_step_report report;
    CHECK(tenon_world_step(world, dt, &report));
    double error;
    CHECK(tenon_joint_get_violation(chain, &error));
    if (error > worst) worst = error;
    EXPECT(report.converged && report.max_violation <= eps_p,
           "step %d: joint error %.3e m above eps_p", k, report.max_violation);
    tenon_vec3 p;
    CHECK(tenon_body_get_position(lamp, &p));
    double angle = atan2(p.x, -p.z);
    if (k >= 2 && prev > before && prev >= angle) {
      if (first == 0.0) {
        first = prev;
        t_first = (k - 1) * dt;
      }
      last = prev;
      t_last = (k - 1) * dt;
    }
    before = prev;
    prev = angle;
  }
  double expected = exp(-c * (t_last - t_first) / 2.0);
  printf("lamp: amplitude %.5f -> %.5f rad over %.2f s (%.5f of it, exp(-c t / 2) = %.5f); "
         "joint error at most %.2e m\n",
         first, last, t_last - t_first, last / first, expected, worst);
  EXPECT(fabs(last / first / expected - 1.0) < 5e-3, "amplitude ratio %.5f, expected %.5f",
         last / first, expected);

  tenon_vec3 v;
  CHECK(tenon_body_get_linear_velocity(crate, &v));
  double terminal = g / 2.0;
  printf("crate: falling at %.9f m/s, g / c = %.9f m/s\n", -v.z, terminal);
  EXPECT(fabs(-v.z - terminal) < 1e-9 * terminal, "crate falls at %.12f m/s", -v.z);

  /* bad coefficients change nothing */
  EXPECT(tenon_body_set_linear_damping(crate, NAN) == TENON_RESULT_NON_FINITE, "NaN accepted");
  EXPECT(tenon_body_set_angular_damping(crate, -1.0) == TENON_RESULT_INVALID_ARGUMENT,
         "negative damping accepted");
  double lin, ang;
  CHECK(tenon_body_get_linear_damping(crate, &lin));
  CHECK(tenon_body_get_angular_damping(crate, &ang));
  EXPECT(lin == 2.0 && ang == 0.0, "damping changed to %g, %g", lin, ang);
  CHECK(tenon_body_destroy(crate));
  EXPECT(tenon_body_set_linear_damping(crate, 1.0) == TENON_RESULT_INVALID_HANDLE,
         "a destroyed body's damping was set");

  CHECK(tenon_world_destroy(world));
  printf("OK\n");
  return 0;
}
