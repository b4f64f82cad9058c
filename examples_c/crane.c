/* crane.c - a crane lowers a crate on a rope onto the floor and lifts it again: a distance
 * joint with a range (tenon_joint_limits on TENON_JOINT_TYPE_DISTANCE) is a rope, slack until
 * pulled taut, hard when taut.
 *
 * The crane's hook is a kinematic body 5 m up, moved by target poses. A 3 m rope (range
 * [0, 3] m) holds a 1 m crate (1000 kg) by the middle of its top face. The hook goes down
 * 2 m at 1 m/s, waits a second and goes up again.
 *
 * Checks: after every step every joint is within eps_p and every contact within the
 * tolerance; the rope is never longer than 3 m (its length is the joint coordinate); the
 * crate hangs still at first, rests on the floor with the rope 1 m slack once lowered, and
 * hangs from the taut rope again, off the floor, once lifted. Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

static const double DT = 1.0 / 60.0;

/* Moves the hook to height z over the next step, steps, and checks the step and the rope. */
static int step(tenon_world_id world, tenon_body_id hook, double z, tenon_joint_id rope,
                double *length) {
  tenon_quat identity = {0, 0, 0, 1};
  CHECK(tenon_body_set_target_pose(hook, (tenon_vec3){0, 0, z}, identity, DT));
  tenon_step_report report;
  CHECK(tenon_world_step(world, DT, &report));
  tenon_contact_report contacts;
  CHECK(tenon_world_get_contact_report(world, &contacts));
  EXPECT(report.converged && report.max_violation <= 1e-9, "joints open by %g m",
         report.max_violation);
  EXPECT(contacts.contacts_converged && contacts.joints_converged,
         "contacts %g m deep", contacts.max_penetration);
  CHECK(tenon_joint_get_coordinate(rope, length));
  EXPECT(*length <= 3.0 + 1e-9, "the rope is %.12f m long", *length);
  return 0;
}

int main(void) {
  tenon_world_def world_def = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&world_def, &world));

  /* the floor: a static half-space z <= 0 */
  tenon_body_def floor_def = tenon_body_def_default();
  floor_def.kind = TENON_BODY_KIND_STATIC;
  tenon_body_id floor_body;
  CHECK(tenon_body_create(world, &floor_def, &floor_body));
  tenon_shape_def plane = tenon_shape_def_default();
  plane.type = TENON_SHAPE_TYPE_HALF_SPACE;
  plane.normal = (tenon_vec3){0, 0, 1};
  tenon_shape_id plane_id;
  CHECK(tenon_shape_create(floor_body, &plane, &plane_id));

  /* the hook: kinematic, 5 m up */
  tenon_body_def hook_def = tenon_body_def_default();
  hook_def.kind = TENON_BODY_KIND_KINEMATIC;
  hook_def.position = (tenon_vec3){0, 0, 5};
  tenon_body_id hook;
  CHECK(tenon_body_create(world, &hook_def, &hook));

  /* the crate: a 1 m cube of 1000 kg/m^3, its top 3 m below the hook */
  tenon_body_def crate_def = tenon_body_def_default();
  crate_def.position = (tenon_vec3){0, 0, 1.5};
  tenon_body_id crate;
  CHECK(tenon_body_create(world, &crate_def, &crate));
  tenon_shape_def cube = tenon_shape_def_default();
  cube.type = TENON_SHAPE_TYPE_BOX;
  cube.half_extents = (tenon_vec3){0.5, 0.5, 0.5};
  tenon_shape_id cube_id;
  CHECK(tenon_shape_create(crate, &cube, &cube_id));
  CHECK(tenon_body_set_mass_from_shapes(crate, NULL));

  /* the rope: a distance joint from the hook to the top of the crate, 0 to 3 m */
  tenon_joint_def rope_def = tenon_joint_def_default();
  rope_def.type = TENON_JOINT_TYPE_DISTANCE;
  rope_def.body_a = hook;
  rope_def.body_b = crate;
  CHECK(tenon_joint_def_set_world_frame(world, &rope_def, (tenon_vec3){0, 0, 5},
                                        (tenon_vec3){1, 0, 0}));
  rope_def.frame_b.anchor = (tenon_vec3){0, 0, 0.5};
  rope_def.limits.lower = 0.0;
  rope_def.limits.upper = 3.0;
  tenon_joint_id rope;
  CHECK(tenon_joint_create(world, &rope_def, &rope));

  double z = 5.0, length = 0.0;
  tenon_vec3 p;
  /* hanging for a second */
  for (int k = 0; k < 60; ++k) {
    if (step(world, hook, z, rope, &length)) return 1;
    CHECK(tenon_body_get_position(crate, &p));
    EXPECT(fabs(length - 3.0) < 1e-9 && fabs(p.z - 1.5) < 1e-6,
           "hanging: rope %.12f m, crate at z = %.9f", length, p.z);
  }
  printf("hanging:  rope %.9f m, crate at z = %.6f m\n", length, p.z);
  /* lowered 2 m at 1 m/s: the crate lands after 1 s, then the rope goes slack */
  for (int k = 0; k < 120; ++k) {
    z -= DT;
    if (step(world, hook, z, rope, &length)) return 1;
  }
  /* waiting a second on the floor */
  for (int k = 0; k < 60; ++k) {
    if (step(world, hook, z, rope, &length)) return 1;
    CHECK(tenon_body_get_position(crate, &p));
    EXPECT(fabs(length - 2.0) < 1e-4 && fabs(p.z - 0.5) < 1e-4,
           "landed: rope %.9f m, crate at z = %.9f", length, p.z);
  }
  printf("landed:   rope %.9f m (slack), crate at z = %.6f m\n", length, p.z);
  /* lifted 2 m at 1 m/s, then held for a second */
  for (int k = 0; k < 180; ++k) {
    if (k < 120) z += DT;
    if (step(world, hook, z, rope, &length)) return 1;
  }
  CHECK(tenon_body_get_position(crate, &p));
  EXPECT(fabs(length - 3.0) < 1e-9 && p.z > 1.4, "lifted: rope %.12f m, crate at z = %.9f",
         length, p.z);
  printf("lifted:   rope %.9f m, crate at z = %.6f m\n", length, p.z);
  CHECK(tenon_world_destroy(world));
  printf("OK: the rope never longer than 3 m, every joint within 1e-9 and every contact "
         "within the tolerance\n");
  return 0;
}
