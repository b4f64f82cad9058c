/* four_bar.c - a closed kinematic loop: a planar four-bar linkage of 4 hinges about y.
 *
 * Ground pivots at (0,0,0) and (2,0,0); crank tip at (0,0,1); rocker tip at (2,0,1.5); three
 * 1 kg bars swing under gravity. Three-dimensional hinges make 2 of the loop's rows redundant;
 * the regularized direct solver closes the loop exactly anyway. Exits non-zero if any joint
 * error exceeds eps_p, or the energy error (it oscillates at this 60 Hz step) exceeds 5% of the
 * bars' m g L. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

/* A slender 1 kg bar from p to q (in the x-z plane): centre in the middle, local x along it. */
static tenon_result make_bar(tenon_world_id world, tenon_vec3 p, tenon_vec3 q, tenon_body_id *out) {
  tenon_vec3 d = {q.x - p.x, q.y - p.y, q.z - p.z};
  double len = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
  tenon_vec3 u = {d.x / len, d.y / len, d.z / len};
  /* shortest rotation from +x to u: q = (x cross u, 1 + x.u), normalized */
  tenon_quat r = {0.0, -u.z, u.y, 1.0 + u.x};
  double n = sqrt(r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w);
  r.x /= n, r.y /= n, r.z /= n, r.w /= n;
  tenon_body_def def = tenon_body_def_default();
  def.position = (tenon_vec3){0.5 * (p.x + q.x), 0.5 * (p.y + q.y), 0.5 * (p.z + q.z)};
  def.rotation = r;
  tenon_result res = tenon_mass_solid_box(1.0, (tenon_vec3){0.5 * len, 0.01, 0.01}, &def.mass_properties);
  if (res != TENON_RESULT_OK) return res;
  return tenon_body_create(world, &def, out);
}

static tenon_result hinge(tenon_world_id world, tenon_body_id a, tenon_body_id b, tenon_vec3 at,
                          tenon_joint_id *out) {
  tenon_joint_def def = tenon_joint_def_default();
  def.type = TENON_JOINT_TYPE_HINGE;
  def.body_a = a; /* the null id {0} is the world */
  def.body_b = b;
  tenon_result res = tenon_joint_def_set_world_frame(world, &def, at, (tenon_vec3){0, 1, 0});
  if (res != TENON_RESULT_OK) return res;
  return tenon_joint_create(world, &def, out);
}

int main(void) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));

  const tenon_vec3 pts[4] = {{0, 0, 0}, {0, 0, 1}, {2, 0, 1.5}, {2, 0, 0}};
  const tenon_body_id ground = {0, 0, 0};
  tenon_body_id bar[3];
  tenon_joint_id joint[4];
  for (int i = 0; i < 3; ++i) CHECK(make_bar(world, pts[i], pts[i + 1], &bar[i]));
  CHECK(hinge(world, ground, bar[0], pts[0], &joint[0]));
  CHECK(hinge(world, bar[0], bar[1], pts[1], &joint[1]));
  CHECK(hinge(world, bar[1], bar[2], pts[2], &joint[2]));
  CHECK(hinge(world, ground, bar[2], pts[3], &joint[3])); /* closes the loop */

  /* The loop starts at rest in equilibrium: push the coupler along +x. The first step's velocity
   * correction keeps only the part of the push the loop allows. */
  CHECK(tenon_body_apply_impulse(bar[1], (tenon_vec3){3.0, 0, 0}, (tenon_vec3){1.0, 0, 1.25}));
  CHECK(tenon_world_step(world, 1.0 / 60.0, NULL));

  double eps_p, k, p;
  CHECK(tenon_world_get_eps_p(world, &eps_p));
  CHECK(tenon_world_get_kinetic_energy(world, &k));
  CHECK(tenon_world_get_potential_energy(world, &p));
  const double e0 = k + p;
  const double scale = 3 * 1.0 * 9.81 * 1.0; /* m g L of the three bars, J */
  double worst = 0.0, max_energy_error = 0.0, crank_min = 1e300, crank_max = -1e300;
  unsigned iterations = 0;
  int ok = 1;
  for (int step = 1; step <= 600; ++step) {
    tenon_step_report r;
    CHECK(tenon_world_step(world, 1.0 / 60.0, &r));
    iterations += r.iterations;
    if (!r.converged || r.islands != 1) ok = 0;
    for (int j = 0; j < 4; ++j) {
      double c;
      CHECK(tenon_joint_get_violation(joint[j], &c));
      if (c > worst) worst = c;
    }
    double angle;
    CHECK(tenon_joint_get_coordinate(joint[0], &angle));
    if (angle < crank_min) crank_min = angle;
    if (angle > crank_max) crank_max = angle;
    CHECK(tenon_world_get_kinetic_energy(world, &k));
    CHECK(tenon_world_get_potential_energy(world, &p));
    if (fabs(k + p - e0) > max_energy_error) max_energy_error = fabs(k + p - e0);
    if (step % 60 == 0)
      printf("t = %4.1f s  crank angle %+.4f rad  max joint error %.2e  energy %+.4f J\n",
             step / 60.0, angle, worst, k + p - e0);
  }
  tenon_warnings w;
  CHECK(tenon_world_get_warnings(world, &w));
  CHECK(tenon_world_destroy(world));
  printf("largest energy error %.3f J (%.1f%% of m g L)\n", max_energy_error, 100 * max_energy_error / scale);
  printf("crank swept [%.3f, %.3f] rad; %u iterations; %llu steps held up redundant rows\n",
         crank_min, crank_max, iterations, (unsigned long long)w.regularization_active);
  if (!ok || worst > eps_p || max_energy_error > 0.05 * scale || crank_max - crank_min < 0.1) {
    fprintf(stderr, "FAILED: converged %d, joint error %.3e (tolerance %.1e), energy error %.3e J (bound %.3f J), sweep %.3f rad\n",
            ok, worst, eps_p, max_energy_error, 0.05 * scale, crank_max - crank_min);
    return 1;
  }
  printf("OK: the loop stayed closed within %.1e at every step\n", eps_p);
  return 0;
}
