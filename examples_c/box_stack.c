/* box_stack.c - ten 1 m boxes stacked on a ground plane, stepped for 10 s at 60 Hz, and a ball
 * hung on a ball joint that swings into the stack's side.
 *
 * Checks: the top box drifts less than 1 cm horizontally, no contact penetrates more than
 * 1 mm, the contact view holds 4 points between the ground and the bottom box whose normal
 * impulses sum to the stack's weight times the step within 2%, every joint ends every step within eps_p, and bad
 * input (NaN size, stale shape id, def not from its default) is rejected; a ball with rolling
 * resistance rolls to rest where 5 b g / (7 r) stops it; a ray cast down meets the top box. Exits
 * non-zero on any failure. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

enum { N = 10 };

int main(void) {
  printf("Tenon %s: box stack\n", tenon_version());
  tenon_world_def world_def = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&world_def, &world));

  /* The ground: a static body with a half-space z <= 0. */
  tenon_body_def ground_def = tenon_body_def_default();
  ground_def.kind = TENON_BODY_KIND_STATIC;
  tenon_body_id ground;
  CHECK(tenon_body_create(world, &ground_def, &ground));
  tenon_shape_def plane = tenon_shape_def_default();
  plane.type = TENON_SHAPE_TYPE_HALF_SPACE;
  plane.normal = (tenon_vec3){0, 0, 1};
  tenon_shape_id plane_shape;
  CHECK(tenon_shape_create(ground, &plane, &plane_shape));

  /* Ten boxes of 1 m, density 1000 kg/m^3, mass from their shapes. */
  tenon_body_id boxes[N];
  for (int i = 0; i < N; ++i) {
    tenon_body_def d = tenon_body_def_default();
    d.position = (tenon_vec3){0, 0, 0.5 + i};
    CHECK(tenon_body_create(world, &d, &boxes[i]));
    tenon_shape_def s = tenon_shape_def_default(); /* a 1 m box */
    tenon_shape_id shape;
    CHECK(tenon_shape_create(boxes[i], &s, &shape));
    tenon_mass_properties mp;
    CHECK(tenon_body_set_mass_from_shapes(boxes[i], &mp));
    EXPECT(fabs(mp.mass - 1000.0) < 1e-9, "box mass %g, expected 1000 kg", mp.mass);
  }

  /* Bad input is rejected and changes nothing. */
  tenon_shape_def bad = tenon_shape_def_default();
  bad.half_extents.y = NAN;
  tenon_shape_id unused;
  EXPECT(tenon_shape_create(boxes[0], &bad, &unused) == TENON_RESULT_NON_FINITE, "NaN size accepted");
  bad = tenon_shape_def_default();
  bad.internal_magic = 0;
  EXPECT(tenon_shape_create(boxes[0], &bad, &unused) == TENON_RESULT_DEF_NOT_INITIALIZED,
         "def without magic accepted");
  tenon_shape_def temp = tenon_shape_def_default();
  temp.type = TENON_SHAPE_TYPE_SPHERE;
  tenon_shape_id gone;
  CHECK(tenon_shape_create(boxes[0], &temp, &gone));
  CHECK(tenon_shape_destroy(gone));
  EXPECT(tenon_shape_destroy(gone) == TENON_RESULT_INVALID_HANDLE, "stale shape id accepted");

  tenon_vec3 start;
  CHECK(tenon_body_get_position(boxes[N - 1], &start));
  const double dt = 1.0 / 60.0;
  double worst_depth = 0.0;
  for (int k = 0; k < 600; ++k) {
    tenon_step_report report;
    CHECK(tenon_world_step(world, dt, &report));
    const tenon_contact *contacts;
    size_t count;
    CHECK(tenon_world_get_contact_view(world, &contacts, &count));
    for (size_t i = 0; i < count; ++i)
      if (contacts[i].depth > worst_depth) worst_depth = contacts[i].depth;
  }
  tenon_vec3 end;
  CHECK(tenon_body_get_position(boxes[N - 1], &end));
  double drift = hypot(end.x - start.x, end.y - start.y);

  const tenon_contact *contacts;
  size_t count;
  CHECK(tenon_world_get_contact_view(world, &contacts, &count));
  double ground_impulse = 0.0;
  size_t ground_points = 0;
  for (size_t i = 0; i < count; ++i)
    if (contacts[i].body_a.index1 == ground.index1 || contacts[i].body_b.index1 == ground.index1) {
      ground_impulse += contacts[i].normal_impulse;
      ++ground_points;
    }
  double weight = N * 1000.0 * 9.81 * dt;
  tenon_contact_report cr;
  CHECK(tenon_world_get_contact_report(world, &cr));
  printf("after 10 s: top box drift %.3e m, worst penetration %.3e m, %zu contact points, "
         "ground impulse %.4f N s (weight x dt %.4f), %u sweeps\n",
         drift, worst_depth, count, ground_impulse, weight, cr.contact_iterations);
  EXPECT(drift < 0.01, "top box drifted %g m", drift);
  EXPECT(worst_depth < 1e-3, "penetration %g m", worst_depth);
  EXPECT(ground_points == 4 && count >= 4 * N, "%zu ground points (expected 4), %zu in all",
         ground_points, count);
  /* Shock propagation gives the lower boxes infinite mass for the upper ones, so the ground
   * carries the stack's weight only up to what the Gauss-Seidel sweeps passed down. */
  EXPECT(fabs(ground_impulse - weight) < 0.02 * weight, "ground impulse %g, expected %g",
         ground_impulse, weight);

  /* Copy-out with a too small buffer reports the count and copies nothing. */
  size_t needed = 0;
  EXPECT(tenon_world_copy_contacts(world, NULL, 0, &needed) == TENON_RESULT_BUFFER_TOO_SMALL &&
             needed == count,
         "copy-out count %zu", needed);

  /* A pendulum ball (joint to the world) swings into the stack: the joint stays hard. */
  tenon_body_def ball_def = tenon_body_def_default();
  ball_def.position = (tenon_vec3){-2.0, 0, 5.0};
  tenon_body_id ball;
  CHECK(tenon_body_create(world, &ball_def, &ball));
  tenon_shape_def sphere = tenon_shape_def_default();
  sphere.type = TENON_SHAPE_TYPE_SPHERE;
  sphere.radius = 0.25;
  sphere.density = 200.0;
  tenon_shape_id ball_shape;
  CHECK(tenon_shape_create(ball, &sphere, &ball_shape));
  CHECK(tenon_body_set_mass_from_shapes(ball, NULL));
  tenon_joint_def rope = tenon_joint_def_default();
  rope.type = TENON_JOINT_TYPE_BALL;
  rope.body_b = ball;
  CHECK(tenon_joint_def_set_world_frame(world, &rope, (tenon_vec3){-0.5, 0, 5.0},
                                        (tenon_vec3){1, 0, 0}));
  tenon_joint_id rope_id;
  CHECK(tenon_joint_create(world, &rope, &rope_id));
  double eps_p;
  CHECK(tenon_world_get_eps_p(world, &eps_p));
  int hits = 0, shape_hits = 0;
  double worst_joint = 0.0;
  for (int k = 0; k < 120; ++k) {
    tenon_step_report report;
    CHECK(tenon_world_step(world, dt, &report));
    if (report.max_violation > worst_joint) worst_joint = report.max_violation;
    const tenon_contact_event *events;
    size_t n_events;
    CHECK(tenon_world_get_contact_events(world, &events, &n_events));
    for (size_t i = 0; i < n_events; ++i)
      if (events[i].begin && (events[i].body_a.index1 == ball.index1 ||
                              events[i].body_b.index1 == ball.index1))
        ++hits;
    /* the same per pair of shapes: the ball and each box have one shape, so one event each */
    const tenon_shape_contact_event *shape_events;
    CHECK(tenon_world_get_shape_contact_events(world, &shape_events, &n_events));
    for (size_t i = 0; i < n_events; ++i)
      if (shape_events[i].begin && (shape_events[i].body_a.index1 == ball.index1 ||
                                    shape_events[i].body_b.index1 == ball.index1))
        ++shape_hits;
  }
  printf("pendulum ball: %d contact begin events (%d per pair of shapes), worst joint error %.2e m\n", hits,
         shape_hits, worst_joint);
  EXPECT(hits >= 1, "the ball never touched the stack");
  EXPECT(shape_hits == hits, "%d shape events for %d body events", shape_hits, hits);
  EXPECT(worst_joint <= eps_p, "joint error %g above eps_p %g", worst_joint, eps_p);

  /* A ray straight down onto the stack meets the top box's upper face, 10 m up. */
  tenon_ray_hit top;
  CHECK(tenon_world_cast_ray(world, (tenon_vec3){0.1, 0.1, 20.0}, (tenon_vec3){0, 0, -1}, 100.0, 1,
                             0xffffffffu, &top));
  printf("ray down: hits body %u at z = %.4f m, normal (%.3f, %.3f, %.3f)\n", top.body.index1,
         top.point.z, top.normal.x, top.normal.y, top.normal.z);
  EXPECT(top.hit && top.body.index1 == boxes[N - 1].index1, "the ray missed the top box");
  EXPECT(fabs(top.point.z - N) < 1e-3 && top.normal.z > 0.999, "top face at z = %g", top.point.z);

  /* A ball with rolling resistance b rolls to rest beside the stack: on level ground it slows
   * by 5 b g / (7 r), 2 m/s are gone after 2.84 m (b = 0.05 m, r = 0.5 m), and its contact
   * reports the angular impulse that slows it. */
  tenon_body_def roller_def = tenon_body_def_default();
  roller_def.position = (tenon_vec3){0, 5.0, 0.5};
  tenon_body_id roller;
  CHECK(tenon_body_create(world, &roller_def, &roller));
  tenon_shape_def rolling = tenon_shape_def_default();
  rolling.type = TENON_SHAPE_TYPE_SPHERE;
  rolling.radius = 0.5;
  rolling.material.rolling_resistance = 0.05;
  tenon_shape_id roller_shape;
  CHECK(tenon_shape_create(roller, &rolling, &roller_shape));
  CHECK(tenon_body_set_mass_from_shapes(roller, NULL));
  CHECK(tenon_body_set_velocity(roller, (tenon_vec3){2.0, 0, 0}, (tenon_vec3){0, 4.0, 0}));
  double torque = 0.0;
  for (int k = 0; k < 240; ++k) {
    CHECK(tenon_world_step(world, dt, NULL));
    const tenon_contact *contacts;
    size_t n_contacts;
    CHECK(tenon_world_get_contact_view(world, &contacts, &n_contacts));
    for (size_t i = 0; i < n_contacts; ++i)
      if (contacts[i].body_b.index1 == roller.index1 && k == 60)
        torque = contacts[i].rolling_impulse.y;
  }
  tenon_vec3 at, speed;
  CHECK(tenon_body_get_position(roller, &at));
  CHECK(tenon_body_get_linear_velocity(roller, &speed));
  double slowing = 5.0 * 0.05 * 9.81 / (7.0 * 0.5);
  double want = 2.0 * 2.0 / (2.0 * slowing);
  printf("rolling ball: rests after %.4f m (%.4f m expected), rolling impulse %.4f N m s\n", at.x,
         want, torque);
  EXPECT(fabs(at.x - want) < 0.02 * want, "rolled %g m, expected %g", at.x, want);
  EXPECT(fabs(speed.x) < 1e-3, "still rolling at %g m/s", speed.x);
  EXPECT(torque < 0.0, "rolling impulse %g does not oppose the roll", torque);

  CHECK(tenon_world_destroy(world));
  printf("OK\n");
  return 0;
}
