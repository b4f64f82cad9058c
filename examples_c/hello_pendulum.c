/* hello_pendulum.c - the smallest Tenon program: a 1 kg bob on a 1 m rod, released horizontal.
 *
 * Prints once per simulated second: time, mean step time, largest joint error, rod length error,
 * energy drift. Exits non-zero if a joint row is violated beyond the world's tolerance eps_p, if
 * the rod's length is off by more than sqrt(3) eps_p (the ball joint's three rows hold each
 * coordinate of the anchor within eps_p), or if the energy error (which oscillates at this 60 Hz
 * step, but must not grow) exceeds 5% of m g L. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

static double total_energy(tenon_world_id world) {
  double k = 0.0, p = 0.0;
  if (tenon_world_get_kinetic_energy(world, &k) != TENON_RESULT_OK ||
      tenon_world_get_potential_energy(world, &p) != TENON_RESULT_OK)
    return NAN;
  return k + p;
}

int main(void) {
  printf("Tenon %s: hello pendulum\n", tenon_version());
  /* A program that may meet another build of the library checks it first: the same ABI (the
     structs' layouts) and a version at least the header's (its functions). */
  if (!TENON_VERSION_COMPATIBLE(tenon_version_number())) {
    fprintf(stderr, "library %s does not serve header %s\n", tenon_version(), TENON_VERSION_STRING);
    return 1;
  }

  tenon_world_def world_def = tenon_world_def_default(); /* gravity (0, 0, -9.81) m/s^2 */
  tenon_world_id world;
  CHECK(tenon_world_create(&world_def, &world));

  /* The bob: a 1 kg sphere of 5 cm radius, 1 m from the pivot at the origin. */
  tenon_body_def bob_def = tenon_body_def_default();
  bob_def.position = (tenon_vec3){1.0, 0.0, 0.0};
  CHECK(tenon_mass_solid_sphere(1.0, 0.05, &bob_def.mass_properties));
  tenon_body_id bob;
  CHECK(tenon_body_create(world, &bob_def, &bob));

  /* A ball joint between the world (null body A) and the bob, anchored at the origin. */
  tenon_joint_def rod_def = tenon_joint_def_default();
  rod_def.type = TENON_JOINT_TYPE_BALL;
  rod_def.body_b = bob;
  CHECK(tenon_joint_def_set_world_frame(world, &rod_def, (tenon_vec3){0, 0, 0},
                                        (tenon_vec3){1, 0, 0}));
  tenon_joint_id rod;
  CHECK(tenon_joint_create(world, &rod_def, &rod));

  double eps_p;
  CHECK(tenon_world_get_eps_p(world, &eps_p));
  const double dt = 1.0 / 60.0, mgl = 1.0 * 9.81 * 1.0;
  const double e0 = total_energy(world);
  double worst_error = 0.0, worst_length = 0.0, worst_drift = 0.0;
  int ok = 1;

  for (int second = 1; second <= 10; ++second) {
    double error = 0.0, length = 0.0;
    unsigned long long ns = 0;
    for (int k = 0; k < 60; ++k) {
      tenon_step_report report;
      CHECK(tenon_world_step(world, dt, &report));
      double joint_error;
      CHECK(tenon_joint_get_violation(rod, &joint_error));
      if (report.max_violation > error) error = report.max_violation;
      if (joint_error > error) error = joint_error;
      if (!report.converged) ok = 0;
      ns += report.time_total_ns;
      tenon_vec3 p;
      CHECK(tenon_body_get_position(bob, &p));
      double length_error = fabs(sqrt(p.x * p.x + p.y * p.y + p.z * p.z) - 1.0);
      if (length_error > length) length = length_error;
    }
    double t, drift = fabs(total_energy(world) - e0) / mgl;
    CHECK(tenon_world_get_time(world, &t));
    printf("t = %5.2f s   step %6.3f us   joint error %.2e m   rod length %.2e m   energy drift "
           "%.2e m g L\n",
           t, (double)ns / 60.0 / 1000.0, error, length, drift);
    if (error > worst_error) worst_error = error;
    if (length > worst_length) worst_length = length;
    if (drift > worst_drift) worst_drift = drift;
  }

  CHECK(tenon_world_destroy(world));
  if (worst_error > eps_p || worst_length > sqrt(3.0) * eps_p || worst_drift > 0.05 || !ok) {
    fprintf(stderr,
            "FAILED: joint error %.3e (tolerance %.1e), rod length %.3e (bound %.2e), energy "
            "drift %.3e (bound 0.05)\n",
            worst_error, eps_p, worst_length, sqrt(3.0) * eps_p, worst_drift);
    return 1;
  }
  printf("OK: joint error <= %.1e m and rod length within %.2e m at every step, energy within "
         "%.2e m g L\n",
         eps_p, sqrt(3.0) * eps_p, worst_drift);
  return 0;
}
