/* heavy_chain.c - a 1:1000 mass ratio: 20 ball-jointed 1 kg links carrying a 1000 kg load.
 *
 * The chain starts horizontal at z = 10 m, hung from the world at (0, 0, 10), and falls.
 * Iterative solvers stretch such a chain visibly; Tenon keeps every joint within eps_p.
 * Exits non-zero if any joint error exceeds 1e-8 m or the chain stretches. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

enum { LINKS = 20 };

int main(void) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));

  tenon_body_id prev = {0, 0, 0}; /* the world */
  tenon_body_id body[LINKS + 1];
  tenon_joint_id joint[LINKS + 1];
  const double z = 10.0;
  for (int i = 0; i <= LINKS; ++i) {
    int load = i == LINKS;
    tenon_body_def bd = tenon_body_def_default();
    bd.position = (tenon_vec3){0.5 * i + 0.25, 0.0, z};
    if (load) /* a 0.5 m cube of 1000 kg */
      CHECK(tenon_mass_solid_box(1000.0, (tenon_vec3){0.25, 0.25, 0.25}, &bd.mass_properties));
    else /* a 0.5 x 0.1 x 0.1 m link of 1 kg */
      CHECK(tenon_mass_solid_box(1.0, (tenon_vec3){0.25, 0.05, 0.05}, &bd.mass_properties));
    CHECK(tenon_body_create(world, &bd, &body[i]));
    tenon_joint_def jd = tenon_joint_def_default();
    jd.type = TENON_JOINT_TYPE_BALL;
    jd.body_a = prev;
    jd.body_b = body[i];
    CHECK(tenon_joint_def_set_world_frame(world, &jd, (tenon_vec3){0.5 * i, 0.0, z},
                                          (tenon_vec3){1, 0, 0}));
    CHECK(tenon_joint_create(world, &jd, &joint[i]));
    prev = body[i];
  }

  double worst = 0.0;
  unsigned iterations = 0, max_substeps = 1;
  unsigned long long ns = 0;
  int ok = 1;
  const int steps = 5 * 60;
  for (int s = 1; s <= steps; ++s) {
    tenon_step_report r;
    CHECK(tenon_world_step(world, 1.0 / 60.0, &r));
    if (!r.converged) ok = 0;
    iterations += r.iterations;
    if (r.substeps > max_substeps) max_substeps = r.substeps;
    ns += r.time_total_ns;
    for (int j = 0; j <= LINKS; ++j) {
      double c;
      CHECK(tenon_joint_get_violation(joint[j], &c));
      if (c > worst) worst = c;
    }
    if (s % 60 == 0) {
      tenon_vec3 p;
      CHECK(tenon_body_get_position(body[LINKS], &p));
      printf("t = %.0f s  load at (%+.3f, %+.3f, %+.3f)  max joint error %.2e m\n", s / 60.0,
             p.x, p.y, p.z, worst);
    }
  }
  /* the load hangs at most 20 links (10 m) + its half size below the pivot */
  tenon_vec3 p;
  CHECK(tenon_body_get_position(body[LINKS], &p));
  double reach = sqrt(p.x * p.x + p.y * p.y + (p.z - z) * (p.z - z));
  CHECK(tenon_world_destroy(world));
  printf("%d steps, %.1f iterations/step, max substeps %u, %.3f ms/step; load %.6f m from the pivot\n",
         steps, (double)iterations / steps, max_substeps, (double)ns / steps / 1e6, reach);
  if (!ok || worst > 1e-8 || reach > 10.25 + 1e-6) {
    fprintf(stderr, "FAILED: converged %d, joint error %.3e (bound 1e-8), reach %.9f m\n", ok,
            worst, reach);
    return 1;
  }
  printf("OK: 1:1000 mass ratio, every joint within 1e-8 m\n");
  return 0;
}
