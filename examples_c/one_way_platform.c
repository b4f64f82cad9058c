/* one_way_platform.c - a platform a character jumps up through and lands on, made with the
 * pre-solve hook (tenon_world_set_pre_solve).
 *
 * A static slab 4 m x 4 m x 0.1 m has its top at 2.05 m. A ball of radius 0.2 m is thrown up at
 * 9 m/s from 0.5 m below it. The hook keeps a pair with the slab only while the pair's normal,
 * from the slab to the ball, points up, the ball is at most 1 cm into the slab and it is not
 * moving up (tenon_pre_solve::normal_velocity is the same whichever way round the pair is).
 *
 * Checks: the ball rises through the slab as if it were not there (its height each step equals
 * that of the same throw in a world without the slab, until the hook first keeps a pair), comes
 * down on the top face and rests there (2.25 m, within 0.1 mm); the hook gets its context back;
 * a call on the world from inside the hook answers TENON_RESULT_WORLD_LOCKED; without the hook
 * the slab stops the ball from below. Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

/* What the hook reads and counts: its context. */
typedef struct {
  tenon_shape_id platform;
  tenon_world_id world;
  tenon_body_id ball;
  int asked, kept, locked;
} platform_context;

static uint32_t one_way(tenon_pre_solve *pair, void *context) {
  platform_context *c = (platform_context *)context;
  c->asked++;
  /* the world is stepping: calls on it are refused, not deadlocked */
  tenon_vec3 p;
  if (tenon_body_get_position(c->ball, &p) == TENON_RESULT_WORLD_LOCKED) c->locked++;
  double up;
  if (same_shape(pair->shape_a, c->platform))
    up = pair->normal.z;
  else if (same_shape(pair->shape_b, c->platform))
    up = -pair->normal.z;
  else
    return 1;
  uint32_t keep = up > 0.7 && pair->separation > -0.01 && pair->normal_velocity < 0.1;
  c->kept += (int)keep;
  return keep;
}

/* A world with a ball thrown up from 0.5 m at 9 m/s, and the slab if `slab` is not NULL. */
static tenon_result throw_ball(tenon_world_id *world, tenon_body_id *ball, tenon_shape_id *slab) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_result r = tenon_world_create(&wd, world);
  if (r != TENON_RESULT_OK) return r;
  if (slab) {
    tenon_body_def sd = tenon_body_def_default();
    sd.kind = TENON_BODY_KIND_STATIC;
    sd.position = (tenon_vec3){0, 0, 2.0};
    tenon_body_id b;
    if ((r = tenon_body_create(*world, &sd, &b)) != TENON_RESULT_OK) return r;
    tenon_shape_def box = tenon_shape_def_default();
    box.half_extents = (tenon_vec3){2.0, 2.0, 0.05};
    if ((r = tenon_shape_create(b, &box, slab)) != TENON_RESULT_OK) return r;
  }
  tenon_body_def bd = tenon_body_def_default();
  bd.position = (tenon_vec3){0, 0, 0.5};
  bd.linear_velocity = (tenon_vec3){0, 0, 9.0};
  if ((r = tenon_body_create(*world, &bd, ball)) != TENON_RESULT_OK) return r;
  tenon_shape_def sphere = tenon_shape_def_default();
  sphere.type = TENON_SHAPE_TYPE_SPHERE;
  sphere.radius = 0.2;
  tenon_shape_id s;
  if ((r = tenon_shape_create(*ball, &sphere, &s)) != TENON_RESULT_OK) return r;
  return tenon_body_set_mass_from_shapes(*ball, NULL);
}

int main(void) {
  const double h = 1.0 / 60.0;
  tenon_world_id world, free_world;
  tenon_body_id ball, free_ball;
  tenon_shape_id slab;
  CHECK(throw_ball(&world, &ball, &slab));
  CHECK(throw_ball(&free_world, &free_ball, NULL));
  platform_context c = {slab, world, ball, 0, 0, 0};
  CHECK(tenon_world_set_pre_solve(world, one_way, &c));

  double highest = 0.0, z = 0.0;
  int first_kept = 0;
  for (int k = 1; k <= 240; ++k) {
    tenon_step_report rep;
    CHECK(tenon_world_step(world, h, &rep));
    CHECK(tenon_world_step(free_world, h, &rep));
    tenon_vec3 p, q;
    CHECK(tenon_body_get_position(ball, &p));
    CHECK(tenon_body_get_position(free_ball, &q));
    if (!first_kept && c.kept > 0) first_kept = k;
    /* through the slab and back down to it: the free throw, bit for bit */
    EXPECT(first_kept || p.z == q.z, "step %d: %.9f m, free throw %.9f m", k, p.z, q.z);
    if (p.z > highest) highest = p.z;
    z = p.z;
    if (k % 30 == 0) printf("t = %.2f s   ball at %.4f m   pairs asked %d, kept %d\n", k * h, p.z, c.asked, c.kept);
  }
  tenon_vec3 v;
  CHECK(tenon_body_get_linear_velocity(ball, &v));
  printf("highest %.3f m, first pair kept at step %d (%.2f s), resting at %.6f m\n", highest, first_kept,
         first_kept * h, z);
  EXPECT(highest > 4.5 && highest < 4.7, "the ball rises through the slab to its apex: %.3f m", highest);
  EXPECT(first_kept * h > 1.0, "the first pair kept is on the way down: step %d", first_kept);
  EXPECT(fabs(z - 2.25) < 1e-4 && fabs(v.z) < 1e-3, "rests on the top: %.6f m, %.2e m/s", z, v.z);
  EXPECT(c.locked == c.asked && c.asked > 0, "calls from the hook are refused: %d of %d", c.locked, c.asked);

  /* without the hook the slab stops the ball from below */
  CHECK(tenon_world_set_pre_solve(world, NULL, NULL));
  CHECK(tenon_world_destroy(world));
  CHECK(throw_ball(&world, &ball, &slab));
  highest = 0.0;
  for (int k = 1; k <= 120; ++k) {
    tenon_step_report rep;
    CHECK(tenon_world_step(world, h, &rep));
    tenon_vec3 p;
    CHECK(tenon_body_get_position(ball, &p));
    if (p.z > highest) highest = p.z;
  }
  EXPECT(highest + 0.2 <= 1.95 + 1e-4, "without the hook the ball stays under the slab: %.4f m", highest);
  EXPECT(tenon_world_set_pre_solve((tenon_world_id){0, 0}, one_way, &c) == TENON_RESULT_INVALID_HANDLE,
         "a null world id is refused");
  CHECK(tenon_world_destroy(world));
  CHECK(tenon_world_destroy(free_world));
  printf("OK: the ball passed up through the one-way platform and rests on it\n");
  return 0;
}
