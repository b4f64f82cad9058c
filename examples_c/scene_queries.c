/* scene_queries.c - the scene queries a game asks between steps: a stack of three 1 m boxes on
 * the ground and a wall 5 m away, settled for one second, then queried.
 *
 * Checks: a ray down through the stack meets the three boxes and the ground, nearest first, at
 * their faces (within 1 mm: the stack has settled), its first hit the one tenon_world_cast_ray()
 * gives; a buffer too small gets TENON_RESULT_BUFFER_TOO_SMALL, the count needed and no write;
 * a box around the stack lists its boxes, one reaching the ground lists the ground too; a ball
 * at the middle box lists it and its neighbours only where it reaches them; a capsule swept
 * along +x stops at the wall after 5 - 0.5 - 0.3 m, a ball dropped from above lands on the top
 * box; a shape def's placement is relative to the query pose; bad input (NULL pointers, a def
 * not from tenon_shape_def_default(), a mesh as the query, a zero direction, a rotation not of
 * unit length, a box whose min exceeds its max) gets its code and writes nothing. Exits
 * non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "tenon.h"

static tenon_result make_body(tenon_world_id world, uint32_t kind, tenon_vec3 p,
                              const tenon_shape_def *s, tenon_shape_id *shape) {
  tenon_body_def d = tenon_body_def_default();
  d.kind = kind;
  d.position = p;
  tenon_body_id b;
  tenon_result r = tenon_body_create(world, &d, &b);
  if (r != TENON_RESULT_OK) return r;
  r = tenon_shape_create(b, s, shape);
  if (r != TENON_RESULT_OK || kind != TENON_BODY_KIND_DYNAMIC) return r;
  return tenon_body_set_mass_from_shapes(b, NULL);
}

int main(void) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  const tenon_quat id = {0, 0, 0, 1};

  tenon_shape_def plane = tenon_shape_def_default();
  plane.type = TENON_SHAPE_TYPE_HALF_SPACE;
  tenon_shape_id ground, wall, boxes[3];
  CHECK(make_body(world, TENON_BODY_KIND_STATIC, (tenon_vec3){0, 0, 0}, &plane, &ground));
  tenon_shape_def slab = tenon_shape_def_default();
  slab.half_extents = (tenon_vec3){0.5, 3.0, 2.0};
  CHECK(make_body(world, TENON_BODY_KIND_STATIC, (tenon_vec3){5.5, 0, 2.0}, &slab, &wall));
  tenon_shape_def cube = tenon_shape_def_default(); /* a 1 m box */
  for (int i = 0; i < 3; ++i) {
    tenon_vec3 p = {0, 0, 0.5 + 1.0 * i};
    CHECK(make_body(world, TENON_BODY_KIND_DYNAMIC, p, &cube, &boxes[i]));
  }
  for (int f = 0; f < 60; ++f) CHECK(tenon_world_step(world, 1.0 / 60.0, NULL));

  /* a ray down through the stack */
  tenon_vec3 from = {0.1, 0.1, 10.0}, down = {0, 0, -1};
  tenon_ray_hit hits[8];
  size_t n = 0;
  CHECK(tenon_world_cast_ray_all(world, from, down, INFINITY, 1, 0xffffffffu, hits, 8, &n));
  EXPECT(n == 4, "ray: %zu hits, want 4", n);
  const double faces[4] = {7.0, 8.0, 9.0, 10.0};
  for (size_t i = 0; i < n; ++i) {
    tenon_shape_id want = i < 3 ? boxes[2 - i] : ground;
    EXPECT(same_shape(hits[i].shape, want), "ray hit %zu is not the expected shape", i);
    EXPECT(fabs(hits[i].distance - faces[i]) < 1e-3, "ray hit %zu at %.6f m, want %.1f", i,
           hits[i].distance, faces[i]);
    EXPECT(hits[i].hit == 1 && hits[i].normal.z > 0.999, "ray hit %zu normal %.3f", i,
           hits[i].normal.z);
  }
  printf("ray down the stack: %zu hits at %.6f, %.6f, %.6f, %.6f m\n", n, hits[0].distance,
         hits[1].distance, hits[2].distance, hits[3].distance);
  tenon_ray_hit first;
  CHECK(tenon_world_cast_ray(world, from, down, INFINITY, 1, 0xffffffffu, &first));
  EXPECT(memcmp(&first, &hits[0], sizeof first) == 0, "cast_ray differs from the first hit");
  /* too small a buffer: the count needed, nothing written */
  tenon_ray_hit two[2];
  memset(two, 0x5a, sizeof two);
  unsigned char sentinel[sizeof two];
  memcpy(sentinel, two, sizeof two);
  EXPECT(tenon_world_cast_ray_all(world, from, down, INFINITY, 1, 0xffffffffu, two, 2, &n) ==
             TENON_RESULT_BUFFER_TOO_SMALL,
         "a buffer of 2 accepted");
  EXPECT(n == 4 && memcmp(two, sentinel, sizeof two) == 0, "too small a buffer: n %zu", n);
  /* capacity 0 asks for the count: two hits within 8.5 m */
  EXPECT(tenon_world_cast_ray_all(world, from, down, 8.5, 1, 0xffffffffu, NULL, 0, &n) ==
                 TENON_RESULT_BUFFER_TOO_SMALL &&
             n == 2,
         "ray to 8.5 m: %zu hits, want 2", n);

  /* boxes */
  tenon_shape_id found[8];
  CHECK(tenon_world_overlap_aabb(world, (tenon_vec3){-1, -1, 0.2}, (tenon_vec3){1, 1, 2.8}, 1,
                                 0xffffffffu, found, 8, &n));
  EXPECT(n == 3, "box around the stack: %zu shapes, want 3", n);
  for (size_t i = 0; i < n; ++i) EXPECT(same_shape(found[i], boxes[i]), "box: shape %zu", i);
  CHECK(tenon_world_overlap_aabb(world, (tenon_vec3){-1, -1, -0.2}, (tenon_vec3){1, 1, 0.2}, 1,
                                 0xffffffffu, found, 8, &n));
  EXPECT(n == 2 && same_shape(found[0], ground) && same_shape(found[1], boxes[0]),
         "box at the ground: %zu shapes", n);

  /* a ball of 0.45 m at the middle box's centre reaches no other box; of 0.55 m, both */
  tenon_shape_def ball = tenon_shape_def_default();
  ball.type = TENON_SHAPE_TYPE_SPHERE;
  ball.radius = 0.45;
  CHECK(tenon_world_overlap_shape(world, &ball, (tenon_vec3){0, 0, 1.5}, id, found, 8, &n));
  EXPECT(n == 1 && same_shape(found[0], boxes[1]), "ball of 0.45: %zu shapes", n);
  ball.radius = 0.55;
  CHECK(tenon_world_overlap_shape(world, &ball, (tenon_vec3){0, 0, 1.5}, id, found, 8, &n));
  EXPECT(n == 3, "ball of 0.55: %zu shapes, want 3", n);
  /* placed 1 m above a pose 1 m lower: the same query */
  ball.position = (tenon_vec3){0, 0, 1.0};
  size_t n2 = 0;
  tenon_shape_id found2[8];
  CHECK(tenon_world_overlap_shape(world, &ball, (tenon_vec3){0, 0, 0.5}, id, found2, 8, &n2));
  EXPECT(n2 == n && memcmp(found, found2, n * sizeof found[0]) == 0, "placement: %zu", n2);
  ball.position = (tenon_vec3){0, 0, 0};

  /* a standing capsule (radius 0.3) swept along +x from x = -0.2 at z = 3.5 (above the stack)
   * meets the wall's face x = 5 after 4.9 m */
  tenon_shape_def capsule = tenon_shape_def_default();
  capsule.type = TENON_SHAPE_TYPE_CAPSULE;
  capsule.radius = 0.3;
  capsule.half_height = 0.4;
  tenon_shape_cast_hit sweep;
  CHECK(tenon_world_cast_shape(world, &capsule, (tenon_vec3){-0.2, 0, 3.5 + 0.75}, id,
                               (tenon_vec3){2, 0, 0}, 100.0, &sweep));
  EXPECT(sweep.hit == 1 && same_shape(sweep.shape, wall), "capsule: no wall");
  EXPECT(fabs(sweep.distance - 4.9) < 1e-9 && sweep.normal.x < -0.999999,
         "capsule: %.12f m, normal x %.6f", sweep.distance, sweep.normal.x);
  CHECK(tenon_world_cast_shape(world, &capsule, (tenon_vec3){-0.2, 0, 4.25}, id,
                               (tenon_vec3){1, 0, 0}, 4.8, &sweep));
  EXPECT(sweep.hit == 0 && sweep.distance == 0.0, "capsule short of the wall met something");
  /* a ball of 0.45 m dropped from z = 10 lands on the top box (face z = 3) */
  ball.radius = 0.45;
  CHECK(tenon_world_cast_shape(world, &ball, (tenon_vec3){0, 0, 10}, id, down, INFINITY,
                               &sweep));
  EXPECT(sweep.hit == 1 && same_shape(sweep.shape, boxes[2]) &&
             fabs(sweep.distance - 6.55) < 1e-3,
         "ball: %.6f m", sweep.distance);
  printf("capsule to the wall: 4.9 m; ball on the stack: %.6f m\n", sweep.distance);

  /* bad input writes nothing */
  tenon_shape_cast_hit untouched;
  memset(&untouched, 0x5a, sizeof untouched);
  tenon_shape_cast_hit probe = untouched;
  tenon_shape_def raw;
  memset(&raw, 0, sizeof raw);
  tenon_shape_def mesh = tenon_shape_def_default();
  mesh.type = TENON_SHAPE_TYPE_TRI_MESH;
  tenon_quat half = {0, 0, 0, 0.5};
  tenon_vec3 p = {0, 0, 5}, x = {1, 0, 0}, zero = {0, 0, 0};
  struct {
    const tenon_shape_def *def;
    tenon_quat q;
    tenon_vec3 dir;
    tenon_result want;
  } bad[] = {
      {NULL, id, x, TENON_RESULT_NULL_POINTER},
      {&raw, id, x, TENON_RESULT_DEF_NOT_INITIALIZED},
      {&mesh, id, x, TENON_RESULT_INVALID_ARGUMENT},
      {&ball, half, x, TENON_RESULT_INVALID_ROTATION},
      {&ball, id, zero, TENON_RESULT_INVALID_ARGUMENT},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    tenon_result r = tenon_world_cast_shape(world, bad[i].def, p, bad[i].q, bad[i].dir, 1.0,
                                            &probe);
    EXPECT(r == bad[i].want, "bad sweep %zu: %s", i, tenon_result_str(r));
    EXPECT(memcmp(&probe, &untouched, sizeof probe) == 0, "bad sweep %zu wrote", i);
    n = 77;
    r = tenon_world_overlap_shape(world, bad[i].def, p, bad[i].q, found, 8, &n);
    EXPECT(i == 4 ? r == TENON_RESULT_OK : (r == bad[i].want && n == 77), "bad overlap %zu: %s",
           i, tenon_result_str(r));
  }
  EXPECT(tenon_world_cast_shape(world, &ball, p, id, x, 1.0, NULL) == TENON_RESULT_NULL_POINTER,
         "NULL out accepted");
  EXPECT(tenon_world_overlap_shape(world, &ball, p, id, found, 8, NULL) ==
             TENON_RESULT_NULL_POINTER,
         "NULL out_count accepted");
  EXPECT(tenon_world_cast_ray_all(world, from, down, 1.0, 1, 0xffffffffu, NULL, 4, &n) ==
             TENON_RESULT_NULL_POINTER,
         "NULL hits with a capacity accepted");
  n = 77;
  EXPECT(tenon_world_overlap_aabb(world, (tenon_vec3){1, 0, 0}, zero, 1, 0xffffffffu, found, 8,
                                  &n) == TENON_RESULT_INVALID_ARGUMENT &&
             n == 77,
         "min above max accepted");

  CHECK(tenon_world_destroy(world));
  printf("scene queries: all checks passed\n");
  return 0;
}
