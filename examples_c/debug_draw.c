/* debug_draw.c - the world as line segments for a debug view (tenon_world_debug_draw).
 *
 * A 1 m box rests on a static ground box and a 2 m hinged pendulum swings beside it. The
 * callback counts the segments of each kind and checks them.
 *
 * Checks: the box's 12 edges, each 1 m long, with their ends on the box's corners at its pose;
 * the ground's 12 edges drawn as static; the pendulum's lines (2 m from the bob's centre to the
 * anchor, the axis) and its anchors' gap within eps_p; the resting box's four contact normals,
 * and its contact impulses carrying its weight over the step; a call on the world from the
 * callback answers TENON_RESULT_WORLD_LOCKED; a NULL callback, unknown flags and bad lengths are
 * refused.
 * Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

typedef struct {
  tenon_body_id box;
  int count[9];
  int locked;
  double longest_gap, impulse_z, bad_corner;
  tenon_vec3 box_position;
  tenon_quat box_rotation;
} drawing;

/* `v` rotated by the unit quaternion `q` inverted */
static tenon_vec3 unrotate(tenon_quat q, tenon_vec3 v) {
  /* v' = v + 2 w (u x v)' ... with u = -(x, y, z) for the inverse */
  double ux = -q.x, uy = -q.y, uz = -q.z, w = q.w;
  double tx = 2 * (uy * v.z - uz * v.y), ty = 2 * (uz * v.x - ux * v.z), tz = 2 * (ux * v.y - uy * v.x);
  return (tenon_vec3){v.x + w * tx + (uy * tz - uz * ty), v.y + w * ty + (uz * tx - ux * tz),
                      v.z + w * tz + (ux * ty - uy * tx)};
}

static void segment(tenon_vec3 a, tenon_vec3 b, tenon_draw_kind kind, void *context) {
  drawing *d = (drawing *)context;
  if (kind < 9) d->count[kind]++;
  tenon_vec3 p;
  if (tenon_body_get_position(d->box, &p) == TENON_RESULT_WORLD_LOCKED) d->locked++;
  double len = sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y) + (b.z - a.z) * (b.z - a.z));
  if (kind == TENON_DRAW_KIND_DYNAMIC) {
    /* the box's edges: 1 m, their ends on its corners (local coordinates +-0.5) */
    tenon_vec3 ends[2] = {a, b};
    for (int e = 0; e < 2; ++e) {
      tenon_vec3 r = {ends[e].x - d->box_position.x, ends[e].y - d->box_position.y, ends[e].z - d->box_position.z};
      tenon_vec3 l = unrotate(d->box_rotation, r);
      double off = fmax(fabs(fabs(l.x) - 0.5), fmax(fabs(fabs(l.y) - 0.5), fabs(fabs(l.z) - 0.5)));
      if (off > d->bad_corner) d->bad_corner = off;
    }
    if (fabs(len - 1.0) > d->bad_corner) d->bad_corner = fabs(len - 1.0);
  }
  if (kind == TENON_DRAW_KIND_JOINT_GAP && len > d->longest_gap) d->longest_gap = len;
  if (kind == TENON_DRAW_KIND_CONTACT_IMPULSE) d->impulse_z += (b.z - a.z) / 0.1;
}

int main(void) {
  const double h = 1.0 / 60.0;
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  tenon_body_def gd = tenon_body_def_default();
  gd.kind = TENON_BODY_KIND_STATIC;
  gd.position = (tenon_vec3){0, 0, -0.5};
  tenon_body_id ground;
  CHECK(tenon_body_create(world, &gd, &ground));
  tenon_shape_def slab = tenon_shape_def_default();
  slab.half_extents = (tenon_vec3){10, 10, 0.5};
  tenon_shape_id s;
  CHECK(tenon_shape_create(ground, &slab, &s));
  tenon_body_def bd = tenon_body_def_default();
  bd.position = (tenon_vec3){0, 0, 0.5};
  bd.rotation = (tenon_quat){0, 0, sin(0.2), cos(0.2)};
  tenon_body_id box;
  CHECK(tenon_body_create(world, &bd, &box));
  tenon_shape_def cube = tenon_shape_def_default();
  CHECK(tenon_shape_create(box, &cube, &s));
  CHECK(tenon_body_set_mass_from_shapes(box, NULL));
  tenon_body_def pd = tenon_body_def_default();
  pd.position = (tenon_vec3){5, 0, 3};
  tenon_body_id bob;
  CHECK(tenon_body_create(world, &pd, &bob));
  tenon_joint_def jd = tenon_joint_def_default();
  jd.type = TENON_JOINT_TYPE_HINGE;
  jd.body_b = bob;
  CHECK(tenon_joint_def_set_world_frame(world, &jd, (tenon_vec3){3, 0, 3}, (tenon_vec3){0, 1, 0}));
  tenon_joint_id joint;
  CHECK(tenon_joint_create(world, &jd, &joint));
  for (int k = 0; k < 60; ++k) {
    tenon_step_report rep;
    CHECK(tenon_world_step(world, h, &rep));
  }

  drawing d = {box, {0}, 0, 0, 0, 0, {0, 0, 0}, {0, 0, 0, 1}};
  CHECK(tenon_body_get_position(box, &d.box_position));
  CHECK(tenon_body_get_rotation(box, &d.box_rotation));
  CHECK(tenon_world_debug_draw(world, TENON_DRAW_SHAPES | TENON_DRAW_JOINTS | TENON_DRAW_CONTACTS, 0.25, 0.1, segment,
                               &d));
  tenon_mass_properties mp;
  CHECK(tenon_body_get_mass_properties(box, &mp));
  int total = 0;
  for (int k = 0; k < 9; ++k) total += d.count[k];
  printf("%d segments: %d dynamic, %d static, %d joint, %d gap, %d normals, %d impulses\n", total, d.count[0],
         d.count[3], d.count[5], d.count[6], d.count[7], d.count[8]);
  printf("box edges on its corners within %.1e m; joint gap %.1e m; impulses carry %.4f of m g h\n", d.bad_corner,
         d.longest_gap, d.impulse_z / (mp.mass * 9.81 * h));
  EXPECT(d.count[TENON_DRAW_KIND_DYNAMIC] == 12 && d.count[TENON_DRAW_KIND_STATIC] == 12, "the two boxes' edges");
  EXPECT(d.bad_corner < 1e-9, "the box's edges on its corners: %.2e m", d.bad_corner);
  EXPECT(d.count[TENON_DRAW_KIND_JOINT] == 2 && d.count[TENON_DRAW_KIND_JOINT_GAP] == 1, "the pendulum's lines");
  EXPECT(d.longest_gap < 1e-8, "the hinge holds: gap %.2e m", d.longest_gap);
  EXPECT(d.count[TENON_DRAW_KIND_CONTACT_NORMAL] == 4, "the box's four contact normals");
  EXPECT(fabs(d.impulse_z / (mp.mass * 9.81 * h) - 1.0) < 1e-4, "its contacts carry its weight");
  EXPECT(d.locked == total, "calls from the callback are refused: %d of %d", d.locked, total);

  EXPECT(tenon_world_debug_draw(world, TENON_DRAW_SHAPES, 0.25, 0.1, NULL, NULL) == TENON_RESULT_NULL_POINTER,
         "a NULL callback is refused");
  EXPECT(tenon_world_debug_draw(world, 8, 0.25, 0.1, segment, &d) == TENON_RESULT_INVALID_ARGUMENT,
         "unknown flags are refused");
  EXPECT(tenon_world_debug_draw(world, TENON_DRAW_JOINTS, NAN, 0.1, segment, &d) == TENON_RESULT_NON_FINITE,
         "a NaN length is refused");
  EXPECT(tenon_world_debug_draw(world, TENON_DRAW_JOINTS, 0.25, 1e6, segment, &d) == TENON_RESULT_INVALID_ARGUMENT,
         "a scale of 1e6 is refused");
  CHECK(tenon_world_destroy(world));
  printf("OK: the world drawn as segments\n");
  return 0;
}
