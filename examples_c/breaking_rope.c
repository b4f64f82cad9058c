/* breaking_rope.c - a rope with a weak link that snaps when a load lands on it
 * (tenon_joint_set_break_force, tenon_world_get_joint_breaks).
 *
 * A rope of 10 links of 0.1 kg hangs from the world on ball joints, a 0.6 m tray at its end.
 * Its sixth joint breaks above 60 N; it carries the five links below it and the tray, 0.5 kg
 * (4.9 N). A 5 kg ball dropped from 0.3 m above the tray lands on it.
 *
 * Checks: every joint holds within eps_p while the rope hangs (no break); the weak joint
 * breaks in the step the ball lands, listed once with a force above 60 N (the ball's weight
 * alone is 49 N; the impact adds to it), and only it; its id is invalid from then on and the
 * rest of the rope holds; the lower part falls with the ball. Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

int main(void) {
  const double h = 1.0 / 60.0;
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));

  tenon_body_id links[10], prev = {0, 0, 0};
  tenon_joint_id joints[10];
  for (int i = 0; i < 10; ++i) {
    tenon_body_def bd = tenon_body_def_default();
    bd.position = (tenon_vec3){0, 0, -0.1 * i - 0.05};
    CHECK(tenon_mass_solid_box(0.1, (tenon_vec3){0.02, 0.02, 0.05}, &bd.mass_properties));
    CHECK(tenon_body_create(world, &bd, &links[i]));
    tenon_joint_def jd = tenon_joint_def_default();
    jd.type = TENON_JOINT_TYPE_BALL;
    jd.body_a = prev;
    jd.body_b = links[i];
    CHECK(tenon_joint_def_set_world_frame(world, &jd, (tenon_vec3){0, 0, -0.1 * i}, (tenon_vec3){1, 0, 0}));
    CHECK(tenon_joint_create(world, &jd, &joints[i]));
    prev = links[i];
  }
  tenon_shape_def tray = tenon_shape_def_default();
  tray.half_extents = (tenon_vec3){0.3, 0.3, 0.02};
  tenon_shape_id tray_shape;
  CHECK(tenon_shape_create(links[9], &tray, &tray_shape));
  CHECK(tenon_joint_set_break_force(joints[5], 60.0, INFINITY));
  double force, torque;
  CHECK(tenon_joint_get_break_force(joints[5], &force, &torque));
  EXPECT(force == 60.0 && isinf(torque), "break force %g N, torque %g N m", force, torque);

  double eps_p;
  CHECK(tenon_world_get_eps_p(world, &eps_p));
  for (int k = 0; k < 30; ++k) {
    tenon_step_report rep;
    CHECK(tenon_world_step(world, h, &rep));
    const tenon_joint_break *breaks;
    size_t n;
    CHECK(tenon_world_get_joint_breaks(world, &breaks, &n));
    EXPECT(n == 0 && breaks == NULL, "step %d: %zu joints broke while the rope hung", k, n);
    EXPECT(rep.converged && rep.max_violation <= eps_p, "step %d: joints at %.2e m", k, rep.max_violation);
  }

  /* the ball: 5 kg, radius 0.1 m, its bottom 0.3 m above the tray's top */
  tenon_body_def bd = tenon_body_def_default();
  bd.position = (tenon_vec3){0, 0, -0.95 + 0.02 + 0.3 + 0.1};
  CHECK(tenon_mass_solid_sphere(5.0, 0.1, &bd.mass_properties));
  tenon_body_id ball;
  CHECK(tenon_body_create(world, &bd, &ball));
  tenon_shape_def sphere = tenon_shape_def_default();
  sphere.type = TENON_SHAPE_TYPE_SPHERE;
  sphere.radius = 0.1;
  tenon_shape_id ball_shape;
  CHECK(tenon_shape_create(ball, &sphere, &ball_shape));

  int broke_at = -1;
  for (int k = 1; k <= 60 && broke_at < 0; ++k) {
    tenon_step_report rep;
    CHECK(tenon_world_step(world, h, &rep));
    const tenon_joint_break *breaks;
    size_t n;
    CHECK(tenon_world_get_joint_breaks(world, &breaks, &n));
    if (n == 0) continue;
    broke_at = k;
    printf("step %d (%.3f s): %zu joint broke, force %.1f N, torque %.2e N m\n", k, k * h, n,
           breaks[0].force, breaks[0].torque);
    EXPECT(n == 1 && breaks[0].joint.index1 == joints[5].index1 &&
               breaks[0].joint.generation == joints[5].generation,
           "only the weak joint breaks");
    EXPECT(breaks[0].force > 60.0, "it broke above its 60 N: %.1f N", breaks[0].force);
    EXPECT(breaks[0].body_a.index1 == links[4].index1 && breaks[0].body_b.index1 == links[5].index1,
           "between the fifth and sixth links");
  }
  /* the ball falls 0.3 m in sqrt(0.6 / g) = 0.25 s: it lands in the 15th step or so */
  EXPECT(broke_at >= 12 && broke_at <= 20, "broke at step %d", broke_at);
  double violation;
  EXPECT(tenon_joint_get_violation(joints[5], &violation) == TENON_RESULT_INVALID_HANDLE,
         "the broken joint's id is invalid");
  size_t count;
  CHECK(tenon_world_get_joint_count(world, &count));
  EXPECT(count == 9, "%zu joints left", count);

  /* the upper rope holds; the lower part falls with the ball */
  for (int k = 0; k < 30; ++k) {
    tenon_step_report rep;
    CHECK(tenon_world_step(world, h, &rep));
    EXPECT(rep.converged && rep.max_violation <= eps_p, "after the break: joints at %.2e m", rep.max_violation);
  }
  tenon_vec3 top, bottom;
  CHECK(tenon_body_get_position(links[4], &top));
  CHECK(tenon_body_get_position(links[9], &bottom));
  printf("after 0.5 s: the upper rope ends at %.3f m, the tray is at %.3f m\n", top.z - 0.05, bottom.z);
  EXPECT(fabs(top.z + 0.45) < 0.01, "the upper rope still hangs: %.4f m", top.z);
  EXPECT(bottom.z < -2.0, "the lower part fell: %.3f m", bottom.z);
  CHECK(tenon_world_destroy(world));
  printf("OK: the weak link broke under the load, once\n");
  return 0;
}
