/* sleeping_piles.c - four stacks of five 1 m boxes, 4 m apart, with sleep enabled: they fall
 * asleep, then a box thrown at one stack wakes that stack alone.
 *
 * Checks: every box sleeps within 1.5 s; asleep, a step detects no contact point, moves no
 * box and lists no body move event; after the throw the move events list the thrown box and
 * the stack it hits alone, at their poses; the thrown box wakes its stack the frame it can reach it and knocks the top box off,
 * while the other three stacks sleep on; a body put to sleep by the caller sleeps with what it
 * touches; a body not allowed to sleep keeps its stack awake; bad input (awake 2, reserved
 * nonzero, a negative velocity, a static body put to sleep) is rejected and changes nothing.
 * Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

enum { STACKS = 4, HIGH = 5 };

static tenon_result make_box(tenon_world_id world, tenon_vec3 p, tenon_body_id *out) {
  tenon_body_def d = tenon_body_def_default();
  d.position = p;
  tenon_result r = tenon_body_create(world, &d, out);
  if (r != TENON_RESULT_OK) return r;
  tenon_shape_def s = tenon_shape_def_default(); /* a 1 m box */
  tenon_shape_id shape;
  r = tenon_shape_create(*out, &s, &shape);
  if (r != TENON_RESULT_OK) return r;
  return tenon_body_set_mass_from_shapes(*out, NULL);
}

static int count_asleep(const tenon_body_id *bodies, int n, int *out) {
  *out = 0;
  for (int i = 0; i < n; ++i) {
    uint32_t awake;
    CHECK(tenon_body_is_awake(bodies[i], &awake));
    *out += awake == 0;
  }
  return 0;
}

int main(void) {
  printf("Tenon %s: sleeping piles\n", tenon_version());
  tenon_world_def world_def = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&world_def, &world));
  tenon_body_def ground_def = tenon_body_def_default();
  ground_def.kind = TENON_BODY_KIND_STATIC;
  tenon_body_id ground;
  CHECK(tenon_body_create(world, &ground_def, &ground));
  tenon_shape_def plane = tenon_shape_def_default();
  plane.type = TENON_SHAPE_TYPE_HALF_SPACE;
  plane.normal = (tenon_vec3){0, 0, 1};
  tenon_shape_id plane_shape;
  CHECK(tenon_shape_create(ground, &plane, &plane_shape));

  tenon_body_id boxes[STACKS * HIGH];
  for (int s = 0; s < STACKS; ++s)
    for (int i = 0; i < HIGH; ++i)
      CHECK(make_box(world, (tenon_vec3){4.0 * s, 0, 0.5 + i}, &boxes[s * HIGH + i]));

  /* Sleep is off by default; bad settings are refused and change nothing. */
  tenon_sleep_settings sleep;
  CHECK(tenon_world_get_sleep_settings(world, &sleep));
  EXPECT(sleep.enabled == 0 && sleep.time == 0.5, "default sleep settings");
  tenon_sleep_settings bad = sleep;
  bad.linear_velocity = -1.0;
  EXPECT(tenon_world_set_sleep_settings(world, bad) == TENON_RESULT_INVALID_ARGUMENT,
         "negative velocity accepted");
  bad = sleep;
  bad.reserved = 1;
  EXPECT(tenon_world_set_sleep_settings(world, bad) == TENON_RESULT_INVALID_ARGUMENT,
         "reserved accepted");
  tenon_sleep_settings now;
  CHECK(tenon_world_get_sleep_settings(world, &now));
  EXPECT(now.enabled == 0 && now.linear_velocity == sleep.linear_velocity, "settings changed");
  sleep.enabled = 1;
  CHECK(tenon_world_set_sleep_settings(world, sleep));

  const double dt = 1.0 / 60.0;
  int asleep = 0, steps = 0;
  double awake_ns = 0.0;
  while (asleep < STACKS * HIGH) {
    EXPECT(steps < 90, "%d of %d boxes asleep after %d steps", asleep, STACKS * HIGH, steps);
    tenon_step_report report;
    CHECK(tenon_world_step(world, dt, &report));
    if (steps >= 10 && steps < 30) awake_ns += (double)report.time_total_ns / 20.0;
    ++steps;
    if (count_asleep(boxes, STACKS * HIGH, &asleep)) return 1;
  }
  size_t sleeping = 0;
  CHECK(tenon_world_get_sleeping_body_count(world, &sleeping));
  EXPECT(sleeping == STACKS * HIGH, "%zu sleeping bodies", sleeping);
  tenon_vec3 before;
  CHECK(tenon_body_get_position(boxes[HIGH - 1], &before));
  double asleep_ns = 0.0;
  for (int k = 0; k < 20; ++k) {
    tenon_step_report report;
    CHECK(tenon_world_step(world, dt, &report));
    asleep_ns += (double)report.time_total_ns / 20.0;
    tenon_contact_report cr;
    CHECK(tenon_world_get_contact_report(world, &cr));
    EXPECT(cr.points == 0 && cr.contact_iterations == 0, "asleep: %u points, %u sweeps", cr.points,
           cr.contact_iterations);
    size_t n_events;
    const tenon_contact_event *events;
    CHECK(tenon_world_get_contact_events(world, &events, &n_events));
    EXPECT(n_events == 0, "asleep: %zu contact events", n_events);
    /* nothing moved: an engine syncing the moved bodies' transforms has none to sync */
    const tenon_body_move_event *moves;
    CHECK(tenon_world_get_body_move_events(world, &moves, &n_events));
    EXPECT(n_events == 0, "asleep: %zu bodies moved", n_events);
  }
  tenon_vec3 after;
  CHECK(tenon_body_get_position(boxes[HIGH - 1], &after));
  EXPECT(after.x == before.x && after.y == before.y && after.z == before.z, "a sleeping box moved");
  printf("asleep after %d steps (%.2f s); step %.1f us awake, %.1f us asleep\n", steps, steps * dt,
         awake_ns * 1e-3, asleep_ns * 1e-3);

  /* A box thrown at the first stack's top wakes that stack alone and knocks the top off. */
  tenon_body_id thrown;
  CHECK(make_box(world, (tenon_vec3){-3.0, 0, HIGH - 0.5}, &thrown));
  CHECK(tenon_body_set_velocity(thrown, (tenon_vec3){8.0, 0, 0}, (tenon_vec3){0, 0, 0}));
  size_t most_moved = 0;
  for (int k = 0; k < 30; ++k) {
    tenon_step_report report;
    CHECK(tenon_world_step(world, dt, &report));
    /* the moved bodies: the thrown box and, once it reaches it, the stack it hits */
    const tenon_body_move_event *moves;
    size_t n_moves;
    CHECK(tenon_world_get_body_move_events(world, &moves, &n_moves));
    for (size_t i = 0; i < n_moves; ++i) {
      tenon_vec3 p;
      CHECK(tenon_body_get_position(moves[i].body, &p));
      EXPECT(p.x == moves[i].position.x && p.z == moves[i].position.z, "a move event's pose");
      EXPECT(moves[i].body.index1 == thrown.index1 || moves[i].body.index1 <= boxes[HIGH - 1].index1,
             "body %u of a sleeping stack moved", moves[i].body.index1);
    }
    if (n_moves > most_moved) most_moved = n_moves;
  }
  EXPECT(most_moved == HIGH + 1, "%zu bodies moved at most in a step", most_moved);
  int first = 0, others = 0;
  if (count_asleep(boxes, HIGH, &first)) return 1;
  if (count_asleep(boxes + HIGH, (STACKS - 1) * HIGH, &others)) return 1;
  tenon_vec3 top;
  CHECK(tenon_body_get_position(boxes[HIGH - 1], &top));
  printf("after the throw: top box at x = %.3f m; %d of the hit stack's boxes asleep, %d of the "
         "others'\n",
         top.x, first, others);
  EXPECT(first == 0 && others == (STACKS - 1) * HIGH, "hit stack %d asleep, others %d", first,
         others);
  EXPECT(top.x > 0.5, "top box at x = %g m", top.x);

  /* Put to sleep by the caller: the second stack's middle box sleeps with its whole stack; not
   * allowed to sleep, the third stack's top keeps its stack awake. */
  CHECK(tenon_body_set_awake(boxes[HIGH + 2], 1));
  EXPECT(tenon_body_set_awake(boxes[HIGH + 2], 2) == TENON_RESULT_INVALID_ARGUMENT, "awake 2");
  EXPECT(tenon_body_set_awake(ground, 0) == TENON_RESULT_INVALID_ARGUMENT, "static asleep");
  int second = 0;
  if (count_asleep(boxes + HIGH, HIGH, &second)) return 1;
  EXPECT(second == 0, "woken stack: %d asleep", second);
  CHECK(tenon_body_set_awake(boxes[HIGH + 2], 0));
  if (count_asleep(boxes + HIGH, HIGH, &second)) return 1;
  EXPECT(second == HIGH, "put to sleep: %d of %d asleep", second, HIGH);
  CHECK(tenon_body_set_sleep_allowed(boxes[3 * HIGH - 1], 0));
  uint32_t allowed = 1;
  CHECK(tenon_body_get_sleep_allowed(boxes[3 * HIGH - 1], &allowed));
  EXPECT(allowed == 0, "sleep still allowed");
  for (int k = 0; k < 90; ++k) {
    tenon_step_report report;
    CHECK(tenon_world_step(world, dt, &report));
  }
  int third = 0;
  if (count_asleep(boxes + 2 * HIGH, HIGH, &third)) return 1;
  EXPECT(third == 0, "a stack with a body not allowed to sleep: %d asleep", third);

  /* Turning sleep off wakes everything. */
  sleep.enabled = 0;
  CHECK(tenon_world_set_sleep_settings(world, sleep));
  CHECK(tenon_world_get_sleeping_body_count(world, &sleeping));
  EXPECT(sleeping == 0, "%zu bodies sleep with sleep off", sleeping);
  CHECK(tenon_world_destroy(world));
  printf("ok\n");
  return 0;
}
