/* ode_peers.c - Tenon (through its C ABI) and the Open Dynamics Engine side by side.
 *
 * The scenes of benches/peers.rs (the same bodies, masses, inertias, poses and joints as the
 * library's scene builders): the heavy chain (1:1000 at 1/60 s), the four-bar, a scissor lift of
 * 50 segments, the spider with 100 legs and the 30 x 30 grid of spheres. Each is described once
 * below and built in both engines. ODE runs with dWorldStep (its direct, dense LCP solver; only
 * where the scene has at most 1000 rows, it is O(n^3)) and with dWorldQuickStep at its default
 * 20 iterations and at 50, with ODE's default ERP 0.2 and CFM 1e-5.
 *
 * Joint error is measured the same way for both engines, from the bodies' poses: the distance
 * between a joint's two anchors, the angle between a hinge's two axes, a slider's offset off its
 * axis and its relative turn. Time per step is wall time, the first step excluded; each
 * configuration runs REPEATS times, the configurations of a scene taking turns (so a slow moment
 * of a shared machine hits all of them), and the table gives the median.
 *
 * Built by CMake when pkg-config finds ODE (Debian: libode-dev). `ode_peers` runs the full
 * frame counts and prints a Markdown table; `ode_peers --quick` (the CTest test) runs a few
 * frames. Exits non-zero if Tenon's joint error exceeds 1e-8 anywhere. */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <ode/ode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tenon.h"

/* Any Tenon error ends the benchmark (the scenes are valid, so none is expected). */
#define TRY(call)                                                                      \
  do {                                                                                 \
    tenon_result r_ = (call);                                                          \
    if (r_ != TENON_RESULT_OK) {                                                       \
      char m_[256];                                                                    \
      tenon_last_error_message(m_, sizeof m_, NULL);                                   \
      fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,               \
              tenon_result_str(r_), m_);                                               \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

/* ---- scene descriptions ---------------------------------------------------------------- */

enum { BALL, HINGE, SLIDER };

typedef struct {
  double mass;
  double half[3]; /* box half extents; half[1] < 0: a sphere of radius half[0] */
  double pos[3];
  double q[4]; /* w x y z */
  double v[3], w[3]; /* start velocities (linear at the centre of mass, angular) */
} body_desc;

typedef struct {
  int type;
  int a, b; /* body indices, -1 the world */
  double anchor[3];
  double axis[3];
  int hold; /* a slider held at its start: a position motor in Tenon, stops at 0 in ODE */
  /* filled at build time from the start poses: anchors and axes in each body's frame */
  double la[3], lb[3], xa[3], xb[3];
  double q0[4]; /* relative rotation at the start (sliders) */
} joint_desc;

typedef struct {
  const char *name;
  int frames;
  int nb, nj, cap_b, cap_j;
  body_desc *bodies;
  joint_desc *joints;
} scene;

static void *grow(void *p, int *cap, int n, size_t size) {
  if (n < *cap) return p;
  *cap = *cap ? 2 * *cap : 64;
  p = realloc(p, (size_t)*cap * size);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  return p;
}

static int add_body(scene *s, double mass, double hx, double hy, double hz, const double pos[3],
                    const double q[4]) {
  s->bodies = grow(s->bodies, &s->cap_b, s->nb, sizeof(body_desc));
  body_desc *b = &s->bodies[s->nb];
  *b = (body_desc){mass, {hx, hy, hz}, {pos[0], pos[1], pos[2]}, {q[0], q[1], q[2], q[3]},
                   {0, 0, 0}, {0, 0, 0}};
  return s->nb++;
}

static void add_joint(scene *s, int type, int a, int b, const double anchor[3],
                      const double axis[3], int hold) {
  s->joints = grow(s->joints, &s->cap_j, s->nj, sizeof(joint_desc));
  joint_desc *j = &s->joints[s->nj++];
  memset(j, 0, sizeof *j);
  j->type = type;
  j->a = a;
  j->b = b;
  memcpy(j->anchor, anchor, sizeof j->anchor);
  memcpy(j->axis, axis, sizeof j->axis);
  j->hold = hold;
}

static const double ID[4] = {1, 0, 0, 0};

/* The shortest turn of x onto d (the library's rotation_from_x_axis). */
static void from_x_axis(const double d[3], double q[4]) {
  double n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double a[3] = {d[0] / n, d[1] / n, d[2] / n};
  if (a[0] < -1.0 + 1e-12) { /* half a turn about z */
    q[0] = 0, q[1] = 0, q[2] = 0, q[3] = 1;
    return;
  }
  /* q = (1 + x.a, x cross a) normalized */
  double w = 1.0 + a[0], v[3] = {0.0, -a[2], a[1]};
  double m = sqrt(w * w + v[1] * v[1] + v[2] * v[2]);
  q[0] = w / m, q[1] = v[0] / m, q[2] = v[1] / m, q[3] = v[2] / m;
}

/* A 2 cm thick bar of `mass` from p to q (the library's scenes::bar). */
static int add_bar(scene *s, const double p[3], const double q[3], double mass) {
  double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
  double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  double rot[4], mid[3] = {0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1]), 0.5 * (p[2] + q[2])};
  from_x_axis(d, rot);
  return add_body(s, mass, 0.5 * len, 0.01, 0.01, mid, rot);
}

static const double X[3] = {1, 0, 0}, Y[3] = {0, 1, 0};

static scene heavy_chain(void) {
  scene s = {"heavy chain 20 links 1:1000", 120, 0, 0, 0, 0, NULL, NULL};
  int prev = -1;
  for (int i = 0; i <= 20; ++i) {
    double pos[3] = {0.25 + 0.5 * i, 0, 10}, anchor[3] = {0.5 * i, 0, 10};
    int b = i < 20 ? add_body(&s, 1.0, 0.25, 0.05, 0.05, pos, ID)
                   : add_body(&s, 1000.0, 0.25, 0.25, 0.25, pos, ID);
    add_joint(&s, BALL, prev, b, anchor, X, 0);
    prev = b;
  }
  return s;
}

/* The crank turns at 2 rad/s about +y at the start; the bars stand up, so the coupler
 * translates with the crank tip (2 m/s along x) and the rocker turns at 2 / 1.5 rad/s (the
 * library's scenes::four_bar). */
static scene four_bar(void) {
  scene s = {"four-bar", 120, 0, 0, 0, 0, NULL, NULL};
  const double p[4][3] = {{0, 0, 0}, {0, 0, 1}, {2, 0, 1.5}, {2, 0, 0}};
  for (int i = 0; i < 3; ++i) add_bar(&s, p[i], p[i + 1], 1.0);
  add_joint(&s, HINGE, -1, 0, p[0], Y, 0);
  add_joint(&s, HINGE, 0, 1, p[1], Y, 0);
  add_joint(&s, HINGE, 1, 2, p[2], Y, 0);
  add_joint(&s, HINGE, -1, 2, p[3], Y, 0);
  const double wc = 2.0, wr = 2.0 * (1.0 / 1.5);
  /* v = w x (x - pivot) with w along y and x - pivot along z: v_x = w (x - pivot)_z */
  s.bodies[0].w[1] = wc;
  s.bodies[0].v[0] = wc * s.bodies[0].pos[2];
  s.bodies[1].v[0] = wc * 1.0;
  s.bodies[2].w[1] = wr;
  s.bodies[2].v[0] = wr * s.bodies[2].pos[2];
  return s;
}

static scene scissor_lift(int segments) {
  scene s = {"scissor lift 50", 120, 0, 0, 0, 0, NULL, NULL};
  int pa = -1, pb = -1;
  for (int k = 0; k < segments; ++k) {
    double z0 = 0.5 * k;
    double bl[3] = {0, 0, z0}, br[3] = {1, 0, z0}, tl[3] = {0, 0, z0 + 0.5},
           tr[3] = {1, 0, z0 + 0.5};
    double mid[3] = {0.5, 0, z0 + 0.25};
    int a = add_bar(&s, bl, tr, 1.0), b = add_bar(&s, br, tl, 1.0);
    add_joint(&s, HINGE, a, b, mid, Y, 0);
    if (k == 0) {
      add_joint(&s, HINGE, -1, a, bl, Y, 0);
      int carriage = add_body(&s, 0.1, 0.05, 0.05, 0.05, br, ID);
      add_joint(&s, SLIDER, -1, carriage, br, X, 1);
      add_joint(&s, HINGE, carriage, b, br, Y, 0);
    } else {
      add_joint(&s, HINGE, pb, a, bl, Y, 0);
      add_joint(&s, HINGE, pa, b, br, Y, 0);
    }
    pa = a, pb = b;
  }
  return s;
}

static scene spider(int legs) {
  scene s = {"spider 100 legs", 60, 0, 0, 0, 0, NULL, NULL};
  const double o[3] = {0, 0, 0}, top[3] = {0, 0, 0.5};
  int hub = add_body(&s, 10.0, 0.5, -1, -1, o, ID);
  add_joint(&s, BALL, -1, hub, top, X, 0);
  for (int k = 0; k < legs; ++k) {
    double ang = 2.0 * M_PI * k / legs, c = cos(ang), sn = sin(ang);
    double p0[3] = {0.5 * c, 0.5 * sn, 0}, p1[3] = {1.5 * c, 1.5 * sn, 0},
           p2[3] = {2.5 * c, 2.5 * sn, 0};
    int l1 = add_bar(&s, p0, p1, 0.5), l2 = add_bar(&s, p1, p2, 0.5);
    add_joint(&s, BALL, hub, l1, p0, X, 0);
    add_joint(&s, BALL, l1, l2, p1, X, 0);
  }
  return s;
}

static scene grid(int n) {
  scene s = {"grid 30 x 30", 60, 0, 0, 0, 0, NULL, NULL};
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double p[3] = {0.5 * i, 0, -0.5 * j};
      add_body(&s, 1.0, 0.2, -1, -1, p, ID);
    }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      int nb[2][2] = {{i + 1, j}, {i, j + 1}};
      for (int e = 0; e < 2; ++e) {
        int k = nb[e][0], l = nb[e][1];
        if (k >= n || l >= n) continue;
        double mid[3] = {0.25 * (i + k), 0, -0.25 * (j + l)};
        add_joint(&s, BALL, i * n + j, k * n + l, mid, X, 0);
      }
    }
  const double o[3] = {0, 0, 0};
  add_joint(&s, BALL, -1, 0, o, X, 0);
  return s;
}

static int rows(const scene *s) {
  int n = 0;
  for (int j = 0; j < s->nj; ++j) n += s->joints[j].type == BALL ? 3 : 5 + s->joints[j].hold;
  return n;
}

/* ---- poses and joint error --------------------------------------------------------------- */

typedef struct {
  double x[3];
  double q[4]; /* w x y z */
} pose;

static void qrot(const double q[4], const double v[3], double out[3]) {
  /* v + 2 w (u x v) + 2 u x (u x v) */
  const double *u = q + 1;
  double t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
                 2 * (u[0] * v[1] - u[1] * v[0])};
  out[0] = v[0] + q[0] * t[0] + u[1] * t[2] - u[2] * t[1];
  out[1] = v[1] + q[0] * t[1] + u[2] * t[0] - u[0] * t[2];
  out[2] = v[2] + q[0] * t[2] + u[0] * t[1] - u[1] * t[0];
}

static void qconj(const double q[4], double out[4]) {
  out[0] = q[0], out[1] = -q[1], out[2] = -q[2], out[3] = -q[3];
}

static void qmul(const double a[4], const double b[4], double o[4]) {
  o[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  o[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  o[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  o[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

static const pose WORLD = {{0, 0, 0}, {1, 0, 0, 0}};

static void to_local(const pose *p, const double w[3], int point, double out[3]) {
  double d[3] = {w[0] - point * p->x[0], w[1] - point * p->x[1], w[2] - point * p->x[2]}, c[4];
  qconj(p->q, c);
  qrot(c, d, out);
}

static void to_world(const pose *p, const double l[3], int point, double out[3]) {
  qrot(p->q, l, out);
  for (int k = 0; k < 3; ++k) out[k] += point * p->x[k];
}

/* Local anchors and axes of every joint from the start poses. */
static void prepare(scene *s, const pose *start) {
  for (int j = 0; j < s->nj; ++j) {
    joint_desc *jd = &s->joints[j];
    const pose *pa = jd->a < 0 ? &WORLD : &start[jd->a], *pb = &start[jd->b];
    to_local(pa, jd->anchor, 1, jd->la);
    to_local(pb, jd->anchor, 1, jd->lb);
    to_local(pa, jd->axis, 0, jd->xa);
    to_local(pb, jd->axis, 0, jd->xb);
    double c[4];
    qconj(pa->q, c);
    qmul(c, pb->q, jd->q0);
  }
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The largest joint error (m or rad) of the scene at `poses`. */
static double joint_error(const scene *s, const pose *poses) {
  double worst = 0.0;
  for (int j = 0; j < s->nj; ++j) {
    const joint_desc *jd = &s->joints[j];
    const pose *pa = jd->a < 0 ? &WORLD : &poses[jd->a], *pb = &poses[jd->b];
    double a[3], b[3], d[3], e = 0.0;
    to_world(pa, jd->la, 1, a);
    to_world(pb, jd->lb, 1, b);
    for (int k = 0; k < 3; ++k) d[k] = b[k] - a[k];
    double xa[3], xb[3], cr[3];
    to_world(pa, jd->xa, 0, xa);
    to_world(pb, jd->xb, 0, xb);
    if (jd->type == BALL) {
      e = norm3(d);
    } else if (jd->type == HINGE) {
      cr[0] = xa[1] * xb[2] - xa[2] * xb[1];
      cr[1] = xa[2] * xb[0] - xa[0] * xb[2];
      cr[2] = xa[0] * xb[1] - xa[1] * xb[0];
      e = fmax(norm3(d), norm3(cr));
    } else { /* slider: off its axis, and any relative turn */
      double along = d[0] * xa[0] + d[1] * xa[1] + d[2] * xa[2];
      double off[3] = {d[0] - along * xa[0], d[1] - along * xa[1], d[2] - along * xa[2]};
      double c[4], rel[4], c0[4], dq[4];
      qconj(pa->q, c);
      qmul(c, pb->q, rel);
      qconj(jd->q0, c0);
      qmul(rel, c0, dq);
      double turn = 2.0 * asin(fmin(1.0, norm3(dq + 1)));
      e = fmax(norm3(off), turn);
      if (jd->hold) e = fmax(e, fabs(along)); /* held at its start */
    }
    if (!(e == e)) return INFINITY;
    if (e > worst) worst = e;
  }
  return worst;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* ---- Tenon --------------------------------------------------------------------------------- */

typedef struct {
  double step; /* s per frame */
  double error;
} run;

static run tenon_run(const scene *s, int frames) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  TRY(tenon_world_create(&wd, &world));
  tenon_body_id *ids = malloc(sizeof(tenon_body_id) * (size_t)s->nb);
  pose *poses = malloc(sizeof(pose) * (size_t)s->nb);
  for (int i = 0; i < s->nb; ++i) {
    const body_desc *b = &s->bodies[i];
    tenon_body_def bd = tenon_body_def_default();
    bd.position = (tenon_vec3){b->pos[0], b->pos[1], b->pos[2]};
    bd.rotation = (tenon_quat){b->q[1], b->q[2], b->q[3], b->q[0]};
    if (b->half[1] < 0)
      TRY(tenon_mass_solid_sphere(b->mass, b->half[0], &bd.mass_properties));
    else
      TRY(tenon_mass_solid_box(b->mass, (tenon_vec3){b->half[0], b->half[1], b->half[2]},
                                 &bd.mass_properties));
    TRY(tenon_body_create(world, &bd, &ids[i]));
    TRY(tenon_body_set_velocity(ids[i], (tenon_vec3){b->v[0], b->v[1], b->v[2]},
                                (tenon_vec3){b->w[0], b->w[1], b->w[2]}));
  }
  const tenon_body_id none = {0, 0, 0};
  for (int j = 0; j < s->nj; ++j) {
    const joint_desc *jd = &s->joints[j];
    tenon_joint_def d = tenon_joint_def_default();
    d.type = jd->type == BALL    ? TENON_JOINT_TYPE_BALL
             : jd->type == HINGE ? TENON_JOINT_TYPE_HINGE
                                 : TENON_JOINT_TYPE_SLIDER;
    d.body_a = jd->a < 0 ? none : ids[jd->a];
    d.body_b = ids[jd->b];
    TRY(tenon_joint_def_set_world_frame(
        world, &d, (tenon_vec3){jd->anchor[0], jd->anchor[1], jd->anchor[2]},
        (tenon_vec3){jd->axis[0], jd->axis[1], jd->axis[2]}));
    tenon_joint_id id;
    TRY(tenon_joint_create(world, &d, &id));
    if (jd->hold)
      TRY(tenon_joint_set_motor(id, (tenon_motor){0.0, 0.0, TENON_MOTOR_MODE_POSITION, 0, INFINITY, 0.0, 0.0}));
  }
  run r = {0.0, 0.0};
  for (int f = 0; f < frames; ++f) {
    double t0 = now();
    TRY(tenon_world_step(world, 1.0 / 60.0, NULL));
    if (f > 0) r.step += now() - t0;
    for (int i = 0; i < s->nb; ++i) {
      tenon_vec3 p;
      tenon_quat q;
      TRY(tenon_body_get_position(ids[i], &p));
      TRY(tenon_body_get_rotation(ids[i], &q));
      poses[i] = (pose){{p.x, p.y, p.z}, {q.w, q.x, q.y, q.z}};
    }
    r.error = fmax(r.error, joint_error(s, poses));
  }
  r.step /= frames - 1;
  TRY(tenon_world_destroy(world));
  free(ids);
  free(poses);
  return r;
}

/* ---- ODE ----------------------------------------------------------------------------------- */

static run ode_run(const scene *s, int frames, int quick_iterations) {
  dWorldID world = dWorldCreate();
  dWorldSetGravity(world, 0, 0, -9.81);
  if (quick_iterations) dWorldSetQuickStepNumIterations(world, quick_iterations);
  dBodyID *ids = malloc(sizeof(dBodyID) * (size_t)s->nb);
  pose *poses = malloc(sizeof(pose) * (size_t)s->nb);
  for (int i = 0; i < s->nb; ++i) {
    const body_desc *b = &s->bodies[i];
    dMass m;
    if (b->half[1] < 0)
      dMassSetSphereTotal(&m, b->mass, b->half[0]);
    else
      dMassSetBoxTotal(&m, b->mass, 2 * b->half[0], 2 * b->half[1], 2 * b->half[2]);
    ids[i] = dBodyCreate(world);
    dBodySetMass(ids[i], &m);
    dBodySetPosition(ids[i], b->pos[0], b->pos[1], b->pos[2]);
    dQuaternion q = {b->q[0], b->q[1], b->q[2], b->q[3]};
    dBodySetQuaternion(ids[i], q);
    dBodySetLinearVel(ids[i], b->v[0], b->v[1], b->v[2]);
    dBodySetAngularVel(ids[i], b->w[0], b->w[1], b->w[2]);
  }
  for (int j = 0; j < s->nj; ++j) {
    const joint_desc *jd = &s->joints[j];
    dBodyID a = jd->a < 0 ? 0 : ids[jd->a], b = ids[jd->b];
    dJointID id;
    if (jd->type == BALL) {
      id = dJointCreateBall(world, 0);
      dJointAttach(id, a, b);
      dJointSetBallAnchor(id, jd->anchor[0], jd->anchor[1], jd->anchor[2]);
    } else if (jd->type == HINGE) {
      id = dJointCreateHinge(world, 0);
      dJointAttach(id, a, b);
      dJointSetHingeAnchor(id, jd->anchor[0], jd->anchor[1], jd->anchor[2]);
      dJointSetHingeAxis(id, jd->axis[0], jd->axis[1], jd->axis[2]);
    } else {
      id = dJointCreateSlider(world, 0);
      dJointAttach(id, a, b);
      dJointSetSliderAxis(id, jd->axis[0], jd->axis[1], jd->axis[2]);
      if (jd->hold) { /* ODE has no position motor: both stops at the start */
        dJointSetSliderParam(id, dParamLoStop, 0.0);
        dJointSetSliderParam(id, dParamHiStop, 0.0);
      }
    }
  }
  run r = {0.0, 0.0};
  for (int f = 0; f < frames; ++f) {
    double t0 = now();
    if (quick_iterations)
      dWorldQuickStep(world, 1.0 / 60.0);
    else
      dWorldStep(world, 1.0 / 60.0);
    if (f > 0) r.step += now() - t0;
    for (int i = 0; i < s->nb; ++i) {
      const dReal *p = dBodyGetPosition(ids[i]), *q = dBodyGetQuaternion(ids[i]);
      poses[i] = (pose){{p[0], p[1], p[2]}, {q[0], q[1], q[2], q[3]}};
    }
    r.error = fmax(r.error, joint_error(s, poses));
  }
  r.step /= frames - 1;
  dWorldDestroy(world);
  free(ids);
  free(poses);
  return r;
}

/* Runs of each configuration; the table reports the median time. */
enum { REPEATS = 5 };

static int by_step(const void *a, const void *b) {
  double x = ((const run *)a)->step, y = ((const run *)b)->step;
  return (x > y) - (x < y);
}

/* The median time of `n` runs and their largest error. */
static run median(run *runs, int n) {
  run r = {0.0, 0.0};
  for (int i = 0; i < n; ++i) r.error = fmax(r.error, runs[i].error);
  qsort(runs, (size_t)n, sizeof *runs, by_step);
  r.step = runs[n / 2].step;
  return r;
}

static void print_run(const char *scene_name, const char *config, run r) {
  char t[32];
  if (r.step < 1e-3)
    snprintf(t, sizeof t, "%.1f us", 1e6 * r.step);
  else
    snprintf(t, sizeof t, "%.2f ms", 1e3 * r.step);
  printf("| %s | %s | %s | %.1e |\n", scene_name, config, t, r.error);
}

int main(int argc, char **argv) {
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  dInitODE2(0);
  scene scenes[] = {heavy_chain(), four_bar(), scissor_lift(50), spider(100), grid(30)};
  int ok = 1;
  printf("| Scene | Engine, configuration | Time per step | Max joint error |\n");
  printf("|---|---|---|---|\n");
  for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; ++k) {
    scene *s = &scenes[k];
    int frames = quick ? 4 : s->frames;
    pose *start = malloc(sizeof(pose) * (size_t)s->nb);
    for (int i = 0; i < s->nb; ++i) {
      memcpy(start[i].x, s->bodies[i].pos, sizeof start[i].x);
      memcpy(start[i].q, s->bodies[i].q, sizeof start[i].q);
    }
    prepare(s, start);
    free(start);
    /* Tenon, dWorldStep (where the scene is small enough), dWorldQuickStep at 20 and 50 */
    run runs[4][REPEATS];
    int reps = quick ? 1 : REPEATS, direct = rows(s) <= 1000;
    for (int i = 0; i < reps; ++i) {
      runs[0][i] = tenon_run(s, frames);
      if (direct) runs[1][i] = ode_run(s, frames, 0);
      runs[2][i] = ode_run(s, frames, 20);
      runs[3][i] = ode_run(s, frames, 50);
    }
    run t = median(runs[0], reps);
    print_run(s->name, "Tenon", t);
    if (!(t.error < 1e-8)) {
      fprintf(stderr, "FAILED: %s: Tenon's joint error %.3e (bound 1e-8)\n", s->name, t.error);
      ok = 0;
    }
    if (direct) print_run(s->name, "ODE dWorldStep", median(runs[1], reps));
    print_run(s->name, "ODE dWorldQuickStep, 20 iterations", median(runs[2], reps));
    print_run(s->name, "ODE dWorldQuickStep, 50 iterations", median(runs[3], reps));
    free(s->bodies);
    free(s->joints);
  }
  dCloseODE();
  return ok ? 0 : 1;
}
