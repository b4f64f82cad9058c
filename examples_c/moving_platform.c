/* moving_platform.c - a kinematic platform animated by the game through target poses
 * (tenon_body_set_target_pose), carrying a crate and a lamp hung from it.
 *
 * Each frame the game gives the platform the pose it must have at the end of the step: it
 * slides 2 m along x and back and turns about z (a sine of 0.6 rad). Exits non-zero if the
 * platform is off its target pose by more than 1e-12 after a step, if the lamp's ball joint
 * leaves eps_p, if the crate slides off or sinks into the platform by more than 1 mm, or if
 * bad input is not refused. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

static tenon_quat about_z(double angle) {
  return (tenon_quat){0.0, 0.0, sin(0.5 * angle), cos(0.5 * angle)};
}

int main(void) {
  tenon_world_def world_def = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&world_def, &world));

  /* the platform: a 4 x 4 x 0.2 m kinematic slab, its top at z = 0.1 */
  tenon_body_def platform_def = tenon_body_def_default();
  platform_def.kind = TENON_BODY_KIND_KINEMATIC;
  tenon_body_id platform;
  CHECK(tenon_body_create(world, &platform_def, &platform));
  tenon_shape_def slab = tenon_shape_def_default();
  slab.type = TENON_SHAPE_TYPE_BOX;
  slab.half_extents = (tenon_vec3){2.0, 2.0, 0.1};
  tenon_shape_id slab_id;
  CHECK(tenon_shape_create(platform, &slab, &slab_id));

  /* the crate: a 1 m cube resting on it */
  tenon_body_def crate_def = tenon_body_def_default();
  crate_def.position = (tenon_vec3){0.5, 0.0, 0.6};
  tenon_body_id crate;
  CHECK(tenon_body_create(world, &crate_def, &crate));
  tenon_shape_def cube = tenon_shape_def_default();
  cube.type = TENON_SHAPE_TYPE_BOX;
  cube.half_extents = (tenon_vec3){0.5, 0.5, 0.5};
  tenon_shape_id cube_id;
  CHECK(tenon_shape_create(crate, &cube, &cube_id));

  /* the lamp: 1 kg, hung 1 m below a hook 1.5 m off the platform's centre (under it) */
  tenon_body_def lamp_def = tenon_body_def_default();
  lamp_def.position = (tenon_vec3){-1.5, 0.0, -1.0};
  CHECK(tenon_mass_solid_sphere(1.0, 0.05, &lamp_def.mass_properties));
  tenon_body_id lamp;
  CHECK(tenon_body_create(world, &lamp_def, &lamp));
  tenon_joint_def hook_def = tenon_joint_def_default();
  hook_def.type = TENON_JOINT_TYPE_BALL;
  hook_def.body_a = platform;
  hook_def.body_b = lamp;
  CHECK(tenon_joint_def_set_world_frame(world, &hook_def, (tenon_vec3){-1.5, 0.0, 0.0},
                                        (tenon_vec3){1, 0, 0}));
  tenon_joint_id hook;
  CHECK(tenon_joint_create(world, &hook_def, &hook));

  double eps_p;
  CHECK(tenon_world_get_eps_p(world, &eps_p));
  const double dt = 1.0 / 60.0;
  double worst_pose = 0.0, worst_joint = 0.0, worst_rest = 0.0;
  for (int k = 1; k <= 600; ++k) {
    double t = k * dt;
    tenon_vec3 p = {1.0 - cos(0.5 * t), 0.0, 0.0};
    double angle = 0.6 * sin(0.8 * t);
    CHECK(tenon_body_set_target_pose(platform, p, about_z(angle), dt));
    tenon_step_report report;
    CHECK(tenon_world_step(world, dt, &report));
    EXPECT(report.converged && report.max_violation <= eps_p, "step %d: joint error %.3e m",
           k, report.max_violation);
    double joint;
    CHECK(tenon_joint_get_violation(hook, &joint));
    if (joint > worst_joint) worst_joint = joint;
    tenon_vec3 x;
    tenon_quat q;
    CHECK(tenon_body_get_position(platform, &x));
    CHECK(tenon_body_get_rotation(platform, &q));
    tenon_quat target = about_z(angle);
    double off = fabs(x.x - p.x) + fabs(x.y) + fabs(x.z) + fabs(q.x) + fabs(q.y) +
                 fabs(q.z - target.z) + fabs(q.w - target.w);
    if (off > worst_pose) worst_pose = off;
    tenon_vec3 c;
    CHECK(tenon_body_get_position(crate, &c));
    if (k > 60 && fabs(c.z - 0.6) > worst_rest) worst_rest = fabs(c.z - 0.6);
  }
  tenon_vec3 c;
  CHECK(tenon_body_get_position(crate, &c));
  printf("platform: off its targets by at most %.1e; lamp joint at most %.2e m; crate %.1e m "
         "off the slab, at (%.3f, %.3f)\n",
         worst_pose, worst_joint, worst_rest, c.x, c.y);
  EXPECT(worst_pose < 1e-12, "platform off its target by %.3e", worst_pose);
  EXPECT(worst_rest < 1e-3, "crate off the slab by %.3e m", worst_rest);
  EXPECT(fabs(c.x) < 2.0 && fabs(c.y) < 2.0, "crate slid off to (%.3f, %.3f)", c.x, c.y);

  /* bad input changes nothing */
  tenon_vec3 v;
  CHECK(tenon_body_get_linear_velocity(platform, &v));
  tenon_vec3 far = {1.0, 0.0, 0.0};
  EXPECT(tenon_body_set_target_pose(platform, far, about_z(0.0), 0.0) ==
             TENON_RESULT_INVALID_ARGUMENT,
         "dt 0 accepted");
  EXPECT(tenon_body_set_target_pose(platform, far, (tenon_quat){0, 0, 0, 2}, dt) ==
             TENON_RESULT_INVALID_ROTATION,
         "non-unit rotation accepted");
  EXPECT(tenon_body_set_target_pose(crate, far, about_z(0.0), dt) ==
             TENON_RESULT_INVALID_ARGUMENT,
         "a dynamic body took a target pose");
  tenon_vec3 v2;
  CHECK(tenon_body_get_linear_velocity(platform, &v2));
  EXPECT(v.x == v2.x && v.y == v2.y && v.z == v2.z, "velocity changed by refused calls");

  CHECK(tenon_world_destroy(world));
  printf("OK\n");
  return 0;
}
