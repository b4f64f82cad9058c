/* conveyor.c - conveyor belts and a tank's tread with a shape's surface velocity
 * (tenon_shape_set_surface_velocity).
 *
 * A static belt 8 m long (its top at z = 0, along x from -4 m to 4 m) moves its surface at
 * 1.5 m/s along x. A 1 m box set on it at rest (friction 0.5) speeds up at mu g = 4.905 m/s^2
 * until it rides at the belt's speed, then is carried to the belt's end and falls off onto the
 * floor 1 m below. A second box, whose own shape's surface moves backwards at 1 m/s (a tread),
 * drives itself forwards along the floor at 1 m/s.
 *
 * Then a conveyor for one body only: the pre-solve hook gives the pairs of a plain floor with
 * one box a surface velocity of 2 m/s (tenon_pre_solve::surface_velocity), and leaves another
 * box's pairs as they are.
 *
 * Checks: the first box's speed after 0.1 s (mu g t, within 1 %), its speed on the belt (1.5 m/s
 * within 1e-4) and that it leaves the belt's end and comes down on the floor; the tread drives
 * its box at 1 m/s (within 1e-4) and a reversed tread at -1 m/s; the surface velocity reads back;
 * NaN and a stale shape id are refused and change nothing; the hook's floor carries its box at
 * 2 m/s (within 1e-4) and leaves the other at rest. Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

static tenon_result add_box(tenon_world_id world, tenon_body_kind kind, tenon_vec3 at, tenon_vec3 half,
                            tenon_body_id *body, tenon_shape_id *shape) {
  tenon_body_def bd = tenon_body_def_default();
  bd.kind = kind;
  bd.position = at;
  tenon_result r = tenon_body_create(world, &bd, body);
  if (r != TENON_RESULT_OK) return r;
  tenon_shape_def box = tenon_shape_def_default();
  box.half_extents = half;
  if ((r = tenon_shape_create(*body, &box, shape)) != TENON_RESULT_OK) return r;
  return kind == TENON_BODY_KIND_DYNAMIC ? tenon_body_set_mass_from_shapes(*body, NULL) : TENON_RESULT_OK;
}

/* The pre-solve hook of the second world: the floor's pairs with the carried box move at 2 m/s
 * along x (B's surface relative to A's: the box over the floor, or the floor under the box). */
typedef struct {
  tenon_shape_id floor, carried;
  int asked;
} carrier;

static uint32_t carry(tenon_pre_solve *pair, void *context) {
  carrier *c = context;
  c->asked++;
  if (same_shape(pair->shape_a, c->floor) && same_shape(pair->shape_b, c->carried)) {
    pair->surface_velocity = (tenon_vec3){2, 0, 0};
  } else if (same_shape(pair->shape_a, c->carried) && same_shape(pair->shape_b, c->floor)) {
    pair->surface_velocity = (tenon_vec3){-2, 0, 0};
  }
  return 1;
}

/* A floor that carries one box and not another, by the pre-solve hook. */
static int one_box_carried(void) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  tenon_body_id floor_body, a, b;
  carrier c = {0};
  tenon_shape_id other;
  CHECK(add_box(world, TENON_BODY_KIND_STATIC, (tenon_vec3){0, 0, -0.5}, (tenon_vec3){30, 30, 0.5}, &floor_body,
                &c.floor));
  CHECK(add_box(world, TENON_BODY_KIND_DYNAMIC, (tenon_vec3){0, 0, 0.5}, (tenon_vec3){0.5, 0.5, 0.5}, &a, &c.carried));
  CHECK(add_box(world, TENON_BODY_KIND_DYNAMIC, (tenon_vec3){0, 3, 0.5}, (tenon_vec3){0.5, 0.5, 0.5}, &b, &other));
  CHECK(tenon_world_set_pre_solve(world, carry, &c));
  tenon_vec3 va, vb;
  for (int k = 1; k <= 120; ++k) {
    CHECK(tenon_world_step(world, 1.0 / 60.0, NULL));
    CHECK(tenon_body_get_linear_velocity(a, &va));
    CHECK(tenon_body_get_linear_velocity(b, &vb));
    /* 2 m/s reached at 2 / (mu g) = 0.41 s */
    if (k >= 40) EXPECT(fabs(va.x - 2.0) < 1e-4 && fabs(va.y) < 1e-4, "step %d: carried at %.6f m/s", k, va.x);
    EXPECT(fabs(vb.x) < 1e-4 && fabs(vb.y) < 1e-4, "step %d: the other box at rest: %.2e m/s", k, vb.x);
  }
  printf("by the hook, the floor carries one box at %.6f m/s and leaves the other at %.1e m/s (%d pairs asked)\n",
         va.x, vb.x, c.asked);
  EXPECT(c.asked >= 240, "the hook saw both pairs in every step");
  CHECK(tenon_world_destroy(world));
  return 0;
}

int main(void) {
  const double h = 1.0 / 60.0, mu_g = 0.5 * 9.81;
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  tenon_body_id floor_body, belt_body, box, tank;
  tenon_shape_id floor_shape, belt, box_shape, tread;
  CHECK(add_box(world, TENON_BODY_KIND_STATIC, (tenon_vec3){0, 0, -1.5}, (tenon_vec3){30, 30, 0.5}, &floor_body,
                &floor_shape));
  CHECK(add_box(world, TENON_BODY_KIND_STATIC, (tenon_vec3){0, 0, -0.5}, (tenon_vec3){4, 1, 0.5}, &belt_body, &belt));
  CHECK(tenon_shape_set_surface_velocity(belt, (tenon_vec3){1.5, 0, 0}));
  CHECK(add_box(world, TENON_BODY_KIND_DYNAMIC, (tenon_vec3){-3.5, 0, 0.5}, (tenon_vec3){0.5, 0.5, 0.5}, &box,
                &box_shape));
  CHECK(add_box(world, TENON_BODY_KIND_DYNAMIC, (tenon_vec3){0, 5, -0.5}, (tenon_vec3){0.5, 0.5, 0.5}, &tank,
                &tread));
  CHECK(tenon_shape_set_surface_velocity(tread, (tenon_vec3){-1, 0, 0}));

  tenon_vec3 v, p, t, read;
  CHECK(tenon_shape_get_surface_velocity(belt, &read));
  EXPECT(read.x == 1.5 && read.y == 0 && read.z == 0, "the surface velocity reads back");
  int left_belt = 0;
  double fastest_on_belt = 0.0;
  for (int k = 1; k <= 480; ++k) {
    tenon_step_report rep;
    CHECK(tenon_world_step(world, h, &rep));
    CHECK(tenon_body_get_linear_velocity(box, &v));
    CHECK(tenon_body_get_position(box, &p));
    if (k == 6) {
      /* the first step lands the box; from then on friction speeds it up by mu g h a step */
      printf("t = 0.10 s   box at %.4f m/s (mu g t = %.4f m/s)\n", v.x, mu_g * k * h);
      EXPECT(fabs(v.x - mu_g * k * h) < 0.01 * mu_g * k * h, "speeding up at mu g: %.5f m/s", v.x);
    }
    if (k >= 20 && p.x < 3.0) {
      EXPECT(fabs(v.x - 1.5) < 1e-4, "step %d: riding at the belt's speed: %.6f m/s", k, v.x);
      if (v.x > fastest_on_belt) fastest_on_belt = v.x;
    }
    if (!left_belt && p.z < 0.0) {
      left_belt = k;
      printf("t = %.2f s   the box leaves the belt's end at x = %.3f m\n", k * h, p.x);
    }
    if (k == 60) {
      CHECK(tenon_body_get_linear_velocity(tank, &t));
      printf("t = 1.00 s   the tread drives its box at %.6f m/s\n", t.x);
      EXPECT(fabs(t.x - 1.0) < 1e-4 && fabs(t.y) < 1e-4, "the tread drives at 1 m/s: %.6f", t.x);
      CHECK(tenon_shape_set_surface_velocity(tread, (tenon_vec3){1, 0, 0}));
    }
  }
  CHECK(tenon_body_get_position(box, &p));
  CHECK(tenon_body_get_linear_velocity(tank, &t));
  printf("the box rode at %.6f m/s, left the belt at step %d and rests at (%.3f, %.3f, %.4f) m\n", fastest_on_belt,
         left_belt, p.x, p.y, p.z);
  printf("reversed, the tread drives its box at %.6f m/s\n", t.x);
  EXPECT(left_belt > 0 && p.x > 4.0 && fabs(p.z + 0.5) < 1e-3, "off the belt's end onto the floor");
  EXPECT(fabs(t.x + 1.0) < 1e-4, "the reversed tread drives at -1 m/s: %.6f", t.x);

  /* bad input: refused, nothing changed */
  EXPECT(tenon_shape_set_surface_velocity(belt, (tenon_vec3){NAN, 0, 0}) == TENON_RESULT_NON_FINITE,
         "NaN is refused");
  CHECK(tenon_shape_get_surface_velocity(belt, &read));
  EXPECT(read.x == 1.5, "a refused velocity changes nothing");
  CHECK(tenon_shape_destroy(belt));
  EXPECT(tenon_shape_set_surface_velocity(belt, (tenon_vec3){1, 0, 0}) == TENON_RESULT_INVALID_HANDLE,
         "a destroyed shape is refused");
  CHECK(tenon_world_destroy(world));
  if (one_box_carried() != 0) return 1;
  printf("OK: the belt carried the box, the tread drove its body, the hook's floor carried one box\n");
  return 0;
}
