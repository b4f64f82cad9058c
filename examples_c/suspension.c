/* suspension.c - a car on sprung suspension: spring drives (TENON_MOTOR_MODE_SPRING) on
 * sliders, the wheels on hinges driven by force-limited motors.
 *
 * A 200 kg chassis (a box 2 m x 1 m x 0.3 m) stands on four wheels (balls of radius 0.3 m,
 * 10 kg). Each wheel turns on a hinge (along y) in a 5 kg knuckle, and each knuckle slides up
 * and down in the chassis on a slider (along z, travel +-0.15 m) with a spring of 20 000 N/m
 * and a damper of 600 N s/m (0.3 of critical for a quarter of the chassis). Built with the springs at rest, the chassis settles by its
 * weight's share over the stiffness, m g / (4 k) = 2.45 cm, the springs then carrying
 * m g / 4 each. Then the rear wheels' motors (12 rad/s, at most 150 N m) drive it forwards.
 *
 * Checks: the settled chassis height (within 1e-4 m of the sag m g / (4 k)) and each spring's
 * impulse per step (m g h / 4 within 1 %); every joint within 1e-8 after every step while the
 * car settles and drives; the car moves forwards at least 3 m in 2 s and stays level within
 * 0.1 rad. Exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "tenon.h"

#define WHEELS 4

static const double chassis_mass = 200.0, wheel_mass = 10.0, knuckle_mass = 5.0, radius = 0.3;
static const double stiffness = 20000.0, damping = 600.0, g = 9.81, h = 1.0 / 60.0;

static tenon_result body(tenon_world_id world, tenon_vec3 at, tenon_mass_properties mass, tenon_body_id *out) {
  tenon_body_def bd = tenon_body_def_default();
  bd.position = at;
  bd.mass_properties = mass;
  return tenon_body_create(world, &bd, out);
}

static tenon_result joint(tenon_world_id world, tenon_joint_type type, tenon_body_id a, tenon_body_id b,
                          tenon_vec3 anchor, tenon_vec3 axis, tenon_joint_id *out) {
  tenon_joint_def jd = tenon_joint_def_default();
  jd.type = type;
  jd.body_a = a;
  jd.body_b = b;
  tenon_result r = tenon_joint_def_set_world_frame(world, &jd, anchor, axis);
  return r != TENON_RESULT_OK ? r : tenon_joint_create(world, &jd, out);
}

/* Every joint's violation after the last step: the largest. */
static double worst_violation(const tenon_joint_id *joints, int n) {
  double worst = 0.0;
  for (int i = 0; i < n; ++i) {
    double v = 0.0;
    if (tenon_joint_get_violation(joints[i], &v) != TENON_RESULT_OK) return INFINITY;
    if (v > worst) worst = v;
  }
  return worst;
}

int main(void) {
  tenon_world_def wd = tenon_world_def_default();
  tenon_world_id world;
  CHECK(tenon_world_create(&wd, &world));
  tenon_body_def gd = tenon_body_def_default();
  gd.kind = TENON_BODY_KIND_STATIC;
  tenon_body_id ground_body, chassis;
  tenon_shape_id shape;
  CHECK(tenon_body_create(world, &gd, &ground_body));
  tenon_shape_def ground = tenon_shape_def_default();
  ground.type = TENON_SHAPE_TYPE_HALF_SPACE;
  ground.normal = (tenon_vec3){0, 0, 1};
  CHECK(tenon_shape_create(ground_body, &ground, &shape));

  /* the chassis 0.25 m above the wheels' centres, the springs at rest */
  const double chassis_z = radius + 0.25;
  tenon_vec3 half = {1.0, 0.5, 0.15};
  tenon_mass_properties chassis_props, knuckle_props, wheel_props;
  CHECK(tenon_mass_solid_box(chassis_mass, half, &chassis_props));
  CHECK(tenon_mass_solid_sphere(knuckle_mass, 0.1, &knuckle_props));
  CHECK(tenon_mass_solid_sphere(wheel_mass, radius, &wheel_props));
  CHECK(body(world, (tenon_vec3){0, 0, chassis_z}, chassis_props, &chassis));
  tenon_shape_def box = tenon_shape_def_default();
  box.half_extents = half;
  CHECK(tenon_shape_create(chassis, &box, &shape));

  tenon_joint_id joints[2 * WHEELS], springs[WHEELS], drives[WHEELS];
  int n_joints = 0;
  for (int i = 0; i < WHEELS; ++i) {
    tenon_vec3 at = {i < 2 ? 0.8 : -0.8, i % 2 ? 0.85 : -0.85, radius};
    tenon_body_id knuckle, wheel;
    CHECK(body(world, at, knuckle_props, &knuckle));
    CHECK(body(world, at, wheel_props, &wheel));
    tenon_shape_def ball = tenon_shape_def_default();
    ball.type = TENON_SHAPE_TYPE_SPHERE;
    ball.radius = radius;
    ball.material.static_friction = ball.material.dynamic_friction = 1.0;
    CHECK(tenon_shape_create(wheel, &ball, &shape));
    /* the knuckle slides along z in the chassis, on a spring; the wheel turns in it */
    CHECK(joint(world, TENON_JOINT_TYPE_SLIDER, chassis, knuckle, at, (tenon_vec3){0, 0, 1}, &springs[i]));
    tenon_joint_limits travel = tenon_joint_def_default().limits;
    travel.lower = -0.15;
    travel.upper = 0.15;
    CHECK(tenon_joint_set_limits(springs[i], travel));
    tenon_motor spring = tenon_joint_def_default().motor;
    spring.mode = TENON_MOTOR_MODE_SPRING;
    spring.stiffness = stiffness;
    spring.damping = damping;
    CHECK(tenon_joint_set_motor(springs[i], spring));
    CHECK(joint(world, TENON_JOINT_TYPE_HINGE, knuckle, wheel, at, (tenon_vec3){0, 1, 0}, &drives[i]));
    joints[n_joints++] = springs[i];
    joints[n_joints++] = drives[i];
  }

  /* settling */
  tenon_vec3 p;
  tenon_step_report report;
  for (int k = 1; k <= 180; ++k) {
    CHECK(tenon_world_step(world, h, &report));
    double worst = worst_violation(joints, n_joints);
    EXPECT(worst < 1e-8, "step %d: a joint is %.2e off", k, worst);
  }
  CHECK(tenon_body_get_position(chassis, &p));
  double sag = chassis_mass * g / (4.0 * stiffness);
  printf("settled in %u substeps a frame: the chassis at %.6f m, %.6f m down (m g / 4k = %.6f m)\n",
         report.substeps, p.z, chassis_z - p.z, sag);
  EXPECT(fabs((chassis_z - p.z) - sag) < 1e-4, "the chassis settles by m g / 4k: %.6f m", chassis_z - p.z);
  for (int i = 0; i < WHEELS; ++i) {
    double impulse = 0.0, q = 0.0;
    CHECK(tenon_joint_get_motor_impulse(springs[i], &impulse));
    CHECK(tenon_joint_get_coordinate(springs[i], &q));
    printf("  spring %d: compressed %.6f m, %.4f N s per step (m g h / 4 = %.4f)\n", i, q, -impulse,
           chassis_mass * g * h / 4.0);
    /* (it pushes the knuckle down: along the coordinate, negative) */
    EXPECT(fabs(-impulse / (chassis_mass * g * h / 4.0) - 1.0) < 0.01, "spring %d carries a quarter of the weight", i);
    EXPECT(fabs(q - sag) < 1e-4, "spring %d compressed by m g / 4k: %.6f m", i, q);
  }

  /* driving: the rear wheels' motors */
  for (int i = 2; i < WHEELS; ++i) {
    tenon_motor drive = tenon_joint_def_default().motor;
    drive.mode = TENON_MOTOR_MODE_VELOCITY;
    drive.target_velocity = 12.0;
    drive.max_force = 150.0;
    CHECK(tenon_joint_set_motor(drives[i], drive));
  }
  double start = p.x;
  tenon_quat q;
  for (int k = 1; k <= 120; ++k) {
    CHECK(tenon_world_step(world, h, NULL));
    double worst = worst_violation(joints, n_joints);
    EXPECT(worst < 1e-8, "driving, step %d: a joint is %.2e off", k, worst);
    CHECK(tenon_body_get_rotation(chassis, &q));
    /* tilt: the chassis' z axis against the world's */
    double up = 1.0 - 2.0 * (q.x * q.x + q.y * q.y);
    EXPECT(up > cos(0.1), "driving, step %d: the chassis tilts by %.3f rad", k, acos(up));
  }
  tenon_vec3 v;
  CHECK(tenon_body_get_position(chassis, &p));
  CHECK(tenon_body_get_linear_velocity(chassis, &v));
  printf("driven 2 s: %.3f m forwards, at %.3f m/s, the chassis at %.4f m\n", p.x - start, v.x, p.z);
  EXPECT(p.x - start > 3.0, "the car drives forwards: %.3f m", p.x - start);
  CHECK(tenon_world_destroy(world));
  printf("OK: the springs carried the car and the joints held\n");
  return 0;
}
