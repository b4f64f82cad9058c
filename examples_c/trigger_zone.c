/* trigger_zone.c - sensors as a game uses them: a trigger volume a ball falls through and a
 * kill plane below the level that catches what falls off it.
 *
 * A static 2 m x 2 m x 1 m box centred 5 m up is made a sensor; a ball of radius 0.25 m falls
 * from 10 m through it onto a 4 m x 4 m floor. A second ball, dropped beside the floor, falls
 * onto a half-space sensor 20 m below the floor's top.
 *
 * Checks: the first ball enters the trigger in the step when its bottom passes 5.5 m and
 * leaves it when its top passes 4.5 m (free fall, each within one step), as one begin and one
 * end event; while inside, tenon_shape_get_sensor_overlaps() lists it; the trigger does not
 * slow it (it lands on the floor 0.25 m up, at rest, as without the trigger); a ray down
 * through the trigger meets the ball inside it, not the trigger; the kill plane's begin names the second ball in the
 * step its bottom passes -20 m (2.0 s); bad input (a sensor flag of 2, a NULL count, a buffer too small) gets its code and
 * writes nothing. Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tenon.h"

static tenon_result make_body(tenon_world_id world, uint32_t kind, tenon_vec3 p,
                              tenon_vec3 v, const tenon_shape_def *s, tenon_shape_id *shape) {
  tenon_body_def d = tenon_body_def_default();
  d.kind = kind;
  d.position = p;
  d.linear_velocity = v;
  tenon_body_id b;
  tenon_result r = tenon_body_create(world, &d, &b);
  if (r != TENON_RESULT_OK) return r;
  r = tenon_shape_create(b, s, shape);
  if (r != TENON_RESULT_OK || kind != TENON_BODY_KIND_DYNAMIC) return r;
  return tenon_body_set_mass_from_shapes(b, NULL);
}

int main(void) {
  const double h = 1.0 / 60.0, g = 9.81;
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  const tenon_vec3 still = {0, 0, 0};

  /* the floor: a static 4 m x 4 m slab, its top at z = 0 */
  tenon_shape_def slab = tenon_shape_def_default();
  slab.half_extents = (tenon_vec3){2.0, 2.0, 0.5};
  tenon_shape_id floor_shape;
  CHECK(make_body(world, TENON_BODY_KIND_STATIC, (tenon_vec3){0, 0, -0.5}, still, &slab,
                  &floor_shape));
  /* the trigger volume and the kill plane */
  tenon_shape_def zone = tenon_shape_def_default();
  zone.half_extents = (tenon_vec3){1.0, 1.0, 0.5};
  tenon_shape_id trigger, kill;
  CHECK(make_body(world, TENON_BODY_KIND_STATIC, (tenon_vec3){0, 0, 5.0}, still, &zone,
                  &trigger));
  CHECK(tenon_shape_set_sensor(trigger, 1));
  tenon_shape_def plane = tenon_shape_def_default();
  plane.type = TENON_SHAPE_TYPE_HALF_SPACE;
  CHECK(make_body(world, TENON_BODY_KIND_STATIC, (tenon_vec3){0, 0, -20.0}, still, &plane,
                  &kill));
  CHECK(tenon_shape_set_sensor(kill, 1));
  uint32_t flag = 7;
  CHECK(tenon_shape_get_sensor(trigger, &flag));
  EXPECT(flag == 1, "the trigger is not a sensor");
  CHECK(tenon_shape_get_sensor(floor_shape, &flag));
  EXPECT(flag == 0, "the floor is a sensor");
  EXPECT(tenon_shape_set_sensor(floor_shape, 2) == TENON_RESULT_INVALID_ARGUMENT,
         "a sensor flag of 2 accepted");
  CHECK(tenon_shape_get_sensor(floor_shape, &flag));
  EXPECT(flag == 0, "a refused flag changed the floor");

  /* the balls: one dropped from 10 m onto the floor, one beside it from 0.25 m */
  tenon_shape_def ball = tenon_shape_def_default();
  ball.type = TENON_SHAPE_TYPE_SPHERE;
  ball.radius = 0.25;
  tenon_shape_id dropped, rolled;
  CHECK(make_body(world, TENON_BODY_KIND_DYNAMIC, (tenon_vec3){0, 0, 10.0}, still, &ball,
                  &dropped));
  CHECK(make_body(world, TENON_BODY_KIND_DYNAMIC, (tenon_vec3){3.0, 0, 0.25}, still, &ball,
                  &rolled));

  /* the frames at which free fall passes a drop (z_k = z0 - g h^2 k (k + 1) / 2): the first
   * ball's bottom the trigger's top (4.25 m down), its top the trigger's bottom (5.75 m), the
   * second ball's bottom the kill plane (20 m) */
  int enter_want = 0, leave_want = 0, caught_want = 0;
  for (int k = 1; k < 1000 && !caught_want; ++k) {
    double fallen = g * h * h * k * (k + 1) / 2.0;
    if (!enter_want && fallen >= 4.25) enter_want = k;
    if (!leave_want && fallen >= 5.75) leave_want = k;
    if (fallen >= 20.0) caught_want = k;
  }
  int entered = 0, left = 0, caught = 0;
  for (int k = 1; k <= 180; ++k) {
    CHECK(tenon_world_step(world, h, NULL));
    const tenon_sensor_event *ev;
    size_t n;
    CHECK(tenon_world_get_sensor_events(world, &ev, &n));
    for (size_t i = 0; i < n; ++i) {
      if (same_shape(ev[i].sensor, trigger)) {
        EXPECT(same_shape(ev[i].visitor, dropped), "frame %d: the trigger saw another shape", k);
        EXPECT(ev[i].begin ? !entered : !left, "frame %d: a second event of the trigger", k);
        if (ev[i].begin) entered = k; else left = k;
      } else {
        EXPECT(same_shape(ev[i].sensor, kill) && same_shape(ev[i].visitor, rolled) &&
                   ev[i].begin == 1 && !caught,
               "frame %d: an unexpected sensor event", k);
        caught = k;
      }
    }
    tenon_shape_id inside[4];
    CHECK(tenon_shape_get_sensor_overlaps(trigger, inside, 4, &n));
    int want_inside = entered && !left;
    EXPECT(n == (size_t)want_inside && (!n || same_shape(inside[0], dropped)),
           "frame %d: %zu shapes listed in the trigger", k, n);
    if (k == entered) {
      /* too small a buffer: the count needed, nothing written */
      tenon_shape_id none[1];
      memset(none, 0x5a, sizeof none);
      size_t need = 0;
      EXPECT(tenon_shape_get_sensor_overlaps(trigger, none, 0, &need) ==
                 TENON_RESULT_BUFFER_TOO_SMALL && need == 1 && none[0].index1 == 0x5a5a5a5a,
             "a buffer too small");
      EXPECT(tenon_shape_get_sensor_overlaps(trigger, none, 1, NULL) ==
                 TENON_RESULT_NULL_POINTER, "a NULL count");
      /* a ray down through the trigger meets the ball, not the sensor */
      tenon_ray_hit hit;
      CHECK(tenon_world_cast_ray(world, (tenon_vec3){0, 0, 20.0}, (tenon_vec3){0, 0, -1},
                                 INFINITY, 1, 0xffffffffu, &hit));
      EXPECT(hit.hit && same_shape(hit.shape, dropped), "the ray stopped at the trigger");
    }
  }
  printf("trigger: entered at frame %d (free fall: %d), left at %d (%d); kill plane: frame %d "
         "(%d)\n", entered, enter_want, left, leave_want, caught, caught_want);
  EXPECT(entered == enter_want && left == leave_want, "enter/leave frames off free fall");
  EXPECT(caught == caught_want, "the kill plane caught at frame %d", caught);
  /* the dropped ball rests on the floor */
  tenon_body_id b;
  CHECK(tenon_shape_get_body(dropped, &b));
  tenon_vec3 p;
  CHECK(tenon_body_get_position(b, &p));
  EXPECT(fabs(p.z - 0.25) < 1e-4, "the dropped ball rests at %.6f m", p.z);
  CHECK(tenon_world_destroy(world));
  printf("OK: trigger zone checks passed\n");
  return 0;
}
