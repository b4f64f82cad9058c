/* rollback.c - saving and restoring a world (tenon_world_copy) for rollback networking.
 *
 * A game with rollback netcode steps on the inputs it predicts, keeps a snapshot of each recent
 * frame, and when a late input arrives for a past frame it restores that frame's snapshot and
 * steps again to the present with the corrected inputs. That only works if a restored world
 * steps exactly as the original did.
 *
 * The scene: a stack of four 1 m boxes on the floor and a steel ball of 0.4 m (2.1 t) falling in front of it. The local
 * side predicts "no throw" and steps 40 frames, saving each frame in a ring of 8 snapshots. At
 * frame 40 the remote input arrives: the ball was thrown at the stack at frame 35. The world is
 * restored to frame 35, the throw applied, and frames 35-39 stepped again; then the game goes on
 * to frame 120. A second world, built the same way, steps straight through with the throw at
 * frame 35.
 *
 * Checks: every body's pose after frame 120 is the same to the bit in both worlds; the throw
 * knocked the stack (a box moved more than 0.5 m); bodies created after a snapshot are gone when
 * it is restored; copying a world onto itself is refused. Prints what a save costs against a
 * step. Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "tenon.h"

#define BOXES 4
#define RING 8
#define MAX_BODIES 16

static const double h = 1.0 / 60.0;
static const int throw_frame = 35, late_frame = 40, last_frame = 120;

static tenon_result add_body(tenon_world_id world, tenon_body_kind kind, tenon_vec3 at, const tenon_shape_def *shape,
                             tenon_body_id *body) {
  tenon_body_def bd = tenon_body_def_default();
  bd.kind = kind;
  bd.position = at;
  tenon_result r = tenon_body_create(world, &bd, body);
  if (r != TENON_RESULT_OK) return r;
  tenon_shape_id s;
  if ((r = tenon_shape_create(*body, shape, &s)) != TENON_RESULT_OK) return r;
  return kind == TENON_BODY_KIND_DYNAMIC ? tenon_body_set_mass_from_shapes(*body, NULL) : TENON_RESULT_OK;
}

/* The floor, the stack and the ball; the ball's id is written to *ball. */
static tenon_result build(tenon_world_id world, tenon_body_id *ball) {
  tenon_body_id b;
  tenon_shape_def floor_shape = tenon_shape_def_default();
  floor_shape.half_extents = (tenon_vec3){20, 20, 0.5};
  tenon_result r = add_body(world, TENON_BODY_KIND_STATIC, (tenon_vec3){0, 0, -0.5}, &floor_shape, &b);
  tenon_shape_def box = tenon_shape_def_default();
  for (int k = 0; k < BOXES && r == TENON_RESULT_OK; ++k)
    r = add_body(world, TENON_BODY_KIND_DYNAMIC, (tenon_vec3){0, 0, 0.5 + k}, &box, &b);
  if (r != TENON_RESULT_OK) return r;
  tenon_shape_def sphere = tenon_shape_def_default();
  sphere.type = TENON_SHAPE_TYPE_SPHERE;
  sphere.radius = 0.4;
  sphere.density = 7800.0; /* steel */
  return add_body(world, TENON_BODY_KIND_DYNAMIC, (tenon_vec3){-5, 0, 3.5}, &sphere, ball);
}

/* The remote player's input: the throw, the ball's velocity set. */
static tenon_result throw_ball(tenon_body_id ball) {
  return tenon_body_set_velocity(ball, (tenon_vec3){15, 0, 1.5}, (tenon_vec3){0, 0, 0});
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id game, straight, ring[RING];
  tenon_body_id ball, straight_ball;
  CHECK(tenon_world_create(&wd, &game));
  CHECK(tenon_world_create(&wd, &straight));
  for (int k = 0; k < RING; ++k) CHECK(tenon_world_create(&wd, &ring[k]));
  CHECK(build(game, &ball));
  CHECK(build(straight, &straight_ball));

  /* the game predicts no throw, saving each frame before stepping it */
  double save_time = 0.0, step_time = 0.0;
  for (int frame = 0; frame < late_frame; ++frame) {
    double t0 = seconds();
    CHECK(tenon_world_copy(ring[frame % RING], game));
    double t1 = seconds();
    CHECK(tenon_world_step(game, h, NULL));
    save_time += t1 - t0;
    step_time += seconds() - t1;
  }
  printf("a save took %.1f us, a step %.1f us (mean over %d frames)\n", 1e6 * save_time / late_frame,
         1e6 * step_time / late_frame, late_frame);

  /* frame 40: the throw of frame 35 arrives; roll back to frame 35 and step again */
  CHECK(tenon_world_copy(game, ring[throw_frame % RING]));
  double time;
  CHECK(tenon_world_get_time(game, &time));
  EXPECT(fabs(time - throw_frame * h) < 1e-12, "restored to frame %d: t = %.6f s", throw_frame, time);
  for (int frame = throw_frame; frame < last_frame; ++frame) {
    if (frame == throw_frame) CHECK(throw_ball(ball));
    CHECK(tenon_world_step(game, h, NULL));
  }
  printf("rolled back from frame %d to frame %d, stepped on to frame %d\n", late_frame, throw_frame, last_frame);

  /* the straight run */
  for (int frame = 0; frame < last_frame; ++frame) {
    if (frame == throw_frame) CHECK(throw_ball(straight_ball));
    CHECK(tenon_world_step(straight, h, NULL));
  }

  tenon_body_id ids[MAX_BODIES], ids2[MAX_BODIES];
  tenon_vec3 x[MAX_BODIES], x2[MAX_BODIES];
  tenon_quat q[MAX_BODIES], q2[MAX_BODIES];
  size_t n = 0, n2 = 0;
  CHECK(tenon_world_get_body_poses(game, ids, x, q, MAX_BODIES, &n));
  CHECK(tenon_world_get_body_poses(straight, ids2, x2, q2, MAX_BODIES, &n2));
  EXPECT(n == BOXES + 2 && n2 == n, "%zu and %zu bodies", n, n2);
  double moved = 0.0;
  for (size_t i = 0; i < n; ++i) {
    EXPECT(ids[i].index1 == ids2[i].index1 && ids[i].generation == ids2[i].generation, "the same bodies");
    EXPECT(memcmp(&x[i], &x2[i], sizeof x[i]) == 0 && memcmp(&q[i], &q2[i], sizeof q[i]) == 0,
           "body %zu: (%.17g, %.17g, %.17g) rolled back, (%.17g, %.17g, %.17g) straight", i, x[i].x, x[i].y, x[i].z,
           x2[i].x, x2[i].y, x2[i].z);
    if (i >= 1 && i <= BOXES) {
      double d = hypot(x[i].x, x[i].y);
      if (d > moved) moved = d;
    }
  }
  printf("after frame %d: all %zu bodies where the straight run has them, to the bit; a box %.2f m off the "
         "stack's line\n",
         last_frame, n, moved);
  EXPECT(moved > 0.5, "the throw knocked the stack: %.3f m", moved);

  /* a body created after a snapshot is gone once it is restored */
  tenon_body_id late;
  tenon_shape_def box = tenon_shape_def_default();
  CHECK(add_body(game, TENON_BODY_KIND_DYNAMIC, (tenon_vec3){5, 5, 0.5}, &box, &late));
  CHECK(tenon_world_copy(game, ring[0]));
  tenon_vec3 p;
  EXPECT(tenon_body_get_position(late, &p) == TENON_RESULT_INVALID_HANDLE, "the late body is gone");
  EXPECT(tenon_world_copy(game, game) == TENON_RESULT_INVALID_ARGUMENT, "a world is not copied onto itself");

  for (int k = 0; k < RING; ++k) CHECK(tenon_world_destroy(ring[k]));
  CHECK(tenon_world_destroy(straight));
  CHECK(tenon_world_destroy(game));
  printf("OK\n");
  return 0;
}
