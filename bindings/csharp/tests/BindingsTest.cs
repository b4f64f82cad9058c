// BindingsTest.cs - the C# bindings against the built library (a CTest test when Mono's compiler
// and runtime are installed): the structs have the C layouts, a pendulum swings with its period,
// the heavy chain holds its joints, a box comes to rest on the ground with one contact event,
// bulk copies follow their convention, a pre-solve hook makes a one-way platform, a trigger sees
// a ball pass, hulls, meshes and height fields are passed pinned, and bad input throws
// TenonException and changes nothing.
// Exits 0 when every check holds, 1 at the first that does not.
using System;
using Tenon;

static class BindingsTest
{
    static int failures;

    static void Expect(bool ok, string what)
    {
        if (!ok)
        {
            Console.Error.WriteLine("FAILED: " + what);
            failures++;
        }
    }

    static tenon_result Throws(Action call)
    {
        try
        {
            call();
        }
        catch (TenonException e)
        {
            return e.Code;
        }
        return tenon_result.Ok;
    }

    static unsafe void Layouts()
    {
        // the sizes examples_c/test_abi.c asserts of the C structs
        Expect(sizeof(tenon_vec3) == 24, "sizeof tenon_vec3");
        Expect(sizeof(tenon_quat) == 32, "sizeof tenon_quat");
        Expect(sizeof(tenon_world_id) == 4, "sizeof tenon_world_id");
        Expect(sizeof(tenon_body_id) == 8, "sizeof tenon_body_id");
        Expect(sizeof(tenon_joint_id) == 8, "sizeof tenon_joint_id");
        Expect(sizeof(tenon_shape_id) == 8, "sizeof tenon_shape_id");
        Expect(sizeof(tenon_mass_properties) == 56, "sizeof tenon_mass_properties");
        Expect(sizeof(tenon_world_def) == 56, "sizeof tenon_world_def");
        Expect(sizeof(tenon_body_def) == 200, "sizeof tenon_body_def");
        Expect(sizeof(tenon_joint_frame) == 56, "sizeof tenon_joint_frame");
        Expect(sizeof(tenon_motor) == 48, "sizeof tenon_motor");
        Expect(sizeof(tenon_joint_def) == 272, "sizeof tenon_joint_def");
        Expect(sizeof(tenon_joint_limits) == 32, "sizeof tenon_joint_limits");
        Expect(sizeof(tenon_step_report) == 88, "sizeof tenon_step_report");
        Expect(sizeof(tenon_island_report) == 96, "sizeof tenon_island_report");
        Expect(sizeof(tenon_warnings) == 40, "sizeof tenon_warnings");
        Expect(sizeof(tenon_material) == 40, "sizeof tenon_material");
        Expect(sizeof(tenon_shape_def) == 240, "sizeof tenon_shape_def");
        Expect(sizeof(tenon_contact) == 144, "sizeof tenon_contact");
        Expect(sizeof(tenon_contact_event) == 24, "sizeof tenon_contact_event");
        Expect(sizeof(tenon_sensor_event) == 24, "sizeof tenon_sensor_event");
        Expect(sizeof(tenon_contact_def) == 120, "sizeof tenon_contact_def");
        Expect(sizeof(tenon_contact_settings) == 40, "sizeof tenon_contact_settings");
        Expect(sizeof(tenon_contact_report) == 80, "sizeof tenon_contact_report");
        Expect(sizeof(tenon_ray_hit) == 80, "sizeof tenon_ray_hit");
        Expect(sizeof(tenon_shape_cast_hit) == 80, "sizeof tenon_shape_cast_hit");
        Expect(sizeof(tenon_sleep_settings) == 32, "sizeof tenon_sleep_settings");
        Expect(sizeof(tenon_pre_solve) == 168, "sizeof tenon_pre_solve");
        Expect(sizeof(tenon_joint_break) == 40, "sizeof tenon_joint_break");
    }

    // A 1 kg ball of 5 cm radius on a 1 m ball joint, released 0.05 rad from the vertical: its
    // period is the physical pendulum's, 2 pi sqrt((I + m L^2) / (m g L)), within 0.5 %, and the
    // joint holds within eps_p after every step.
    static void Pendulum()
    {
        using (var world = new World())
        {
            double g = 9.81, L = 1.0, angle = 0.05, dt = 1.0 / 60.0;
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(L * Math.Sin(angle), 0, -L * Math.Cos(angle));
            def.mass_properties = Mass.SolidSphere(1.0, 0.05);
            Body bob = world.CreateBody(def);
            Joint rod = world.CreateJoint(tenon_joint_type.Ball, Body.None, bob, tenon_vec3.Zero,
                                          new tenon_vec3(1, 0, 0));
            double inertia = def.mass_properties.inertia_diagonal.x;
            double expected = 2 * Math.PI * Math.Sqrt((inertia + L * L) / (g * L));

            double worst = 0, lastX = bob.Position.x, lastT = 0, firstCrossing = -1, lastCrossing = -1;
            int crossings = 0;
            bool converged = true;
            for (int k = 1; k <= 600; k++)
            {
                tenon_step_report r = world.Step(dt);
                converged &= r.converged != 0;
                worst = Math.Max(worst, rod.Violation);
                double x = bob.Position.x, t = world.Time;
                if (lastX > 0 && x <= 0)
                {
                    // downward crossing of x = 0, interpolated within the step
                    double at = lastT + dt * lastX / (lastX - x);
                    if (firstCrossing < 0)
                    {
                        firstCrossing = at;
                    }
                    else
                    {
                        crossings++;
                        lastCrossing = at;
                    }
                }
                lastX = x;
                lastT = t;
            }
            double period = (lastCrossing - firstCrossing) / crossings;
            Console.WriteLine("pendulum: period {0:F5} s, expected {1:F5} s ({2:E2} relative), worst joint error {3:E2} m",
                              period, expected, Math.Abs(period / expected - 1), worst);
            Expect(crossings >= 4, "the pendulum swings (" + crossings + " periods)");
            Expect(Math.Abs(period / expected - 1) < 0.005, "pendulum period within 0.5 %");
            Expect(converged, "every pendulum step converged");
            Expect(worst <= world.EpsP, "pendulum joint within eps_p");
        }
    }

    // The heavy chain: 20 links of 1 kg on ball joints from the world, a 1000 kg box at the end,
    // released horizontal: every step converges without substeps and every joint stays within
    // 1e-8 m.
    static void HeavyChain()
    {
        using (var world = new World())
        {
            Body prev = Body.None;
            var link = Mass.SolidBox(1.0, new tenon_vec3(0.25, 0.05, 0.05));
            for (int i = 0; i <= 20; i++)
            {
                var def = Native.tenon_body_def_default();
                def.position = new tenon_vec3(0.25 + 0.5 * i, 0, 10);
                def.mass_properties = i < 20 ? link : Mass.SolidBox(1000.0, new tenon_vec3(0.25, 0.25, 0.25));
                Body b = world.CreateBody(def);
                world.CreateJoint(tenon_joint_type.Ball, prev, b, new tenon_vec3(0.5 * i, 0, 10), new tenon_vec3(1, 0, 0));
                prev = b;
            }
            double worst = 0;
            uint substeps = 0;
            bool converged = true;
            for (int k = 0; k < 120; k++)
            {
                tenon_step_report r = world.Step(1.0 / 60.0);
                converged &= r.converged != 0;
                substeps = Math.Max(substeps, r.substeps);
                worst = Math.Max(worst, world.MaxJointViolation);
            }
            double drop = 10 - prev.Position.z;
            Console.WriteLine("heavy chain: worst joint error {0:E2} m over 2 s, most substeps {1}, load {2:F2} m below the pivot",
                              worst, substeps, drop);
            Expect(converged, "every heavy chain step converged");
            Expect(substeps == 1, "no substeps");
            Expect(worst <= 1e-8, "heavy chain joints within 1e-8 m");
            Expect(drop > 5, "the load swung down");
            Expect(world.JointCount == 21 && world.BodyCount == 21, "21 bodies and joints");
            tenon_island_report[] islands = world.IslandReports();
            Expect(islands.Length == 1 && islands[0].bodies == 21 && islands[0].joints == 21
                   && islands[0].rows == 63 && islands[0].converged != 0, "one island of 21 bodies and 63 rows");
        }
    }

    // A 1 m box dropped from 0.5 m onto the ground comes to rest at z = 0.5 m (within the
    // contact tolerance), touching it: one contact event, a begin; the ground is found by a ray.
    static void BoxOnGround()
    {
        using (var world = new World())
        {
            Body ground = world.CreateBody(tenon_body_kind.Static, tenon_vec3.Zero);
            ground.AddShape(ShapeDef.HalfSpace(new tenon_vec3(0, 0, 1)));
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(0, 0, 1.0);
            def.mass_properties = Mass.SolidBox(10.0, new tenon_vec3(0.5, 0.5, 0.5));
            Body box = world.CreateBody(def);
            Shape shape = box.AddShape(ShapeDef.Box(new tenon_vec3(0.5, 0.5, 0.5)));
            var events = new tenon_contact_event[8];
            var shapeEvents = new tenon_shape_contact_event[8];
            int begins = 0, ends = 0, shapeBegins = 0;
            for (int k = 0; k < 120; k++)
            {
                world.Step(1.0 / 60.0);
                int n = world.GetContactEvents(events);
                for (int i = 0; i < n; i++)
                {
                    if (events[i].begin != 0) begins++; else ends++;
                }
                n = world.GetShapeContactEvents(shapeEvents);
                for (int i = 0; i < n; i++)
                {
                    Expect(shapeEvents[i].begin != 0 && shapeEvents[i].shape_b.Equals(shape.Id)
                           && shapeEvents[i].body_a.Equals(ground.Id), "the box's shape begins touching the ground's");
                    shapeBegins++;
                }
            }
            Expect(shapeBegins == 1, "one shape event");
            var moved = world.BodyMoveEvents();
            Expect(moved.Length == 1 && moved[0].body.Equals(box.Id) && moved[0].position.z == box.Position.z,
                   "the box moved in the last step, where it is");
            double z = box.Position.z, v = box.LinearVelocity.z;
            int contacts = world.Contacts().Length;
            Console.WriteLine("box on the ground: z {0:F7} m, vz {1:E2} m/s, {2} contact points, {3} begin / {4} end events",
                              z, v, contacts, begins, ends);
            Expect(Math.Abs(z - 0.5) < 2e-5, "the box rests on the ground");
            Expect(Math.Abs(v) < 1e-3, "the box is at rest");
            Expect(contacts == 4, "four contact points under the box");
            Expect(begins == 1 && ends == 0, "one begin event");
            Expect(shape.Body.Equals(box), "the shape's body");
            Expect(box.Shapes().Length == 1 && box.Shapes()[0].Equals(shape.Id), "the body's shapes");

            tenon_ray_hit hit;
            bool met = world.CastRay(new tenon_vec3(3, 0, 5), new tenon_vec3(0, 0, -1), double.PositiveInfinity, out hit);
            Expect(met && Math.Abs(hit.distance - 5) < 1e-12 && hit.body.Equals(ground.Id), "a ray meets the ground 5 m down");
            met = world.CastRay(new tenon_vec3(0, 0, 5), new tenon_vec3(0, 0, -1), double.PositiveInfinity, out hit);
            Expect(met && Math.Abs(hit.distance - (5 - z - 0.5)) < 1e-9 && hit.shape.Equals(shape.Id), "a ray meets the box's top");

            // a frame's sync allocates nothing managed: the step, the poses, the events
            var ids = new tenon_body_id[2];
            var positions = new tenon_vec3[2];
            var rotations = new tenon_quat[2];
            var sensed = new tenon_sensor_event[4];
            var movedBuffer = new tenon_body_move_event[4];
            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int k = 0; k < 100; k++)
            {
                world.Step(1.0 / 60.0);
                world.GetBodyPoses(ids, positions, rotations);
                world.GetContactEvents(events);
                world.GetShapeContactEvents(shapeEvents);
                world.GetBodyMoveEvents(movedBuffer);
                world.GetSensorEvents(sensed);
            }
            long garbage = GC.GetAllocatedBytesForCurrentThread() - before;
            Console.WriteLine("100 frames of step, poses and events: {0} bytes allocated", garbage);
            Expect(garbage == 0, "a frame's sync allocates nothing");
        }
    }

    // Bulk copies: a short array gets nothing and the count needed; the right one gets every pose.
    static void BodyPoses()
    {
        using (var world = new World())
        {
            var bodies = new Body[3];
            for (int i = 0; i < 3; i++)
            {
                bodies[i] = world.CreateBody(tenon_body_kind.Dynamic, new tenon_vec3(i, 2 * i, 3 * i));
            }
            world.Step(0.1);
            var ids = new tenon_body_id[2];
            var positions = new tenon_vec3[2];
            Expect(world.GetBodyPoses(ids, positions, null) == 3 && ids[0].IsNull, "a short array: the count, nothing copied");
            ids = new tenon_body_id[3];
            positions = new tenon_vec3[3];
            var rotations = new tenon_quat[3];
            Expect(world.GetBodyPoses(ids, positions, rotations) == 3, "three poses");
            for (int i = 0; i < 3; i++)
            {
                tenon_vec3 p = bodies[i].Position;
                Expect(ids[i].Equals(bodies[i].Id) && positions[i].x == p.x && positions[i].z == p.z
                       && rotations[i].w == bodies[i].Rotation.w, "pose " + i);
            }
            // free fall over 0.1 s
            Expect(Math.Abs(positions[1].z - (3 - 0.5 * 9.81 * 0.01)) < 0.1 * 9.81 * 0.1, "free fall");
        }
    }

    // A ball thrown up under a one-way platform passes through it and lands on it: the pre-solve
    // hook keeps the platform's pairs only while their normal points up from the platform, the
    // ball is at most 1 cm into it and not moving up. Without the hook it stops under it.
    static double OneWayPlatform(bool hook, out double highest)
    {
        using (var world = new World())
        {
            var slab = ShapeDef.Box(new tenon_vec3(2, 2, 0.05));
            Shape platform = world.CreateBody(tenon_body_kind.Static, new tenon_vec3(0, 0, 2)).AddShape(slab);
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(0, 0, 0.5);
            def.linear_velocity = new tenon_vec3(0, 0, 9);
            Body ball = world.CreateBody(def);
            ball.AddShape(ShapeDef.Sphere(0.2));
            ball.SetMassFromShapes();
            if (hook)
            {
                world.SetPreSolve((ref tenon_pre_solve pair) =>
                {
                    double up;
                    if (pair.shape_a.Equals(platform.Id)) up = pair.normal.z;
                    else if (pair.shape_b.Equals(platform.Id)) up = -pair.normal.z;
                    else return true;
                    return up > 0.7 && pair.separation > -0.01 && pair.normal_velocity < 0.1;
                });
            }
            highest = 0;
            for (int k = 0; k < 240; k++)
            {
                world.Step(1.0 / 60.0);
                highest = Math.Max(highest, ball.Position.z);
            }
            return ball.Position.z;
        }
    }

    static void PreSolve()
    {
        double highest, z = OneWayPlatform(true, out highest);
        Console.WriteLine("one-way platform: up to {0:F3} m, resting at {1:F6} m", highest, z);
        Expect(highest > 4.5 && highest < 4.7, "the ball passes up through the platform (apex 4.63 m)");
        Expect(Math.Abs(z - 2.25) < 1e-4, "and lands on its top at 2.25 m");
        OneWayPlatform(false, out highest);
        Expect(highest + 0.2 <= 1.95 + 1e-4, "without the hook the platform stops it from below");

        // a hook that makes the pair frictionless: a box sliding at 2 m/s on the ground keeps its speed
        using (var world = new World())
        {
            world.CreateBody(tenon_body_kind.Static, tenon_vec3.Zero).AddShape(ShapeDef.HalfSpace(new tenon_vec3(0, 0, 1)));
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(0, 0, 0.5);
            def.linear_velocity = new tenon_vec3(2, 0, 0);
            Body box = world.CreateBody(def);
            box.AddShape(ShapeDef.Box(new tenon_vec3(0.5, 0.5, 0.5)));
            double given = -1;
            world.SetPreSolve((ref tenon_pre_solve pair) =>
            {
                given = pair.material.static_friction;
                pair.material.static_friction = 0;
                pair.material.dynamic_friction = 0;
                return true;
            });
            for (int k = 0; k < 60; k++)
            {
                world.Step(1.0 / 60.0);
            }
            Expect(Math.Abs(given - 0.5) < 1e-15, "the hook is given the combined material");
            Expect(Math.Abs(box.LinearVelocity.x - 2) < 1e-9, "frictionless by the hook, the box keeps 2 m/s");
        }

        // a conveyor: a box set at rest on a belt moving at 1.5 m/s rides at 1.5 m/s; a tread drives its body
        using (var world = new World())
        {
            Shape belt = world.CreateBody(tenon_body_kind.Static, tenon_vec3.Zero).AddShape(ShapeDef.HalfSpace(new tenon_vec3(0, 0, 1)));
            belt.SurfaceVelocity = new tenon_vec3(1.5, 0, 0);
            Expect(belt.SurfaceVelocity.x == 1.5, "the surface velocity reads back");
            Expect(Throws(() => belt.SurfaceVelocity = new tenon_vec3(double.NaN, 0, 0)) == tenon_result.NonFinite,
                "a NaN surface velocity is refused");
            Body box = world.CreateBody(tenon_body_kind.Dynamic, new tenon_vec3(0, 0, 0.5));
            box.AddShape(ShapeDef.Box(new tenon_vec3(0.5, 0.5, 0.5)));
            Body tank = world.CreateBody(tenon_body_kind.Dynamic, new tenon_vec3(0, 5, 0.5));
            Shape tread = tank.AddShape(ShapeDef.Box(new tenon_vec3(0.5, 0.5, 0.5)));
            tread.SurfaceVelocity = new tenon_vec3(-1.5, 1, 0);
            for (int k = 0; k < 60; k++)
            {
                world.Step(1.0 / 60.0);
            }
            Console.WriteLine("conveyor: the box rides at {0:F6} m/s, the tank drives at {1:F6} m/s",
                box.LinearVelocity.x, tank.LinearVelocity.y);
            Expect(Math.Abs(box.LinearVelocity.x - 1.5) < 1e-4, "the belt carries the box at 1.5 m/s");
            // on the moving ground the tread's box goes at the belt's 1.5 m/s plus the tread's (1.5, -1) m/s
            Expect(Math.Abs(tank.LinearVelocity.x - 3.0) < 1e-4 && Math.Abs(tank.LinearVelocity.y + 1) < 1e-4,
                "the tread drives its body over the belt");
        }

        // a conveyor for one body: the hook gives the ground's pairs with one box 2 m/s
        using (var world = new World())
        {
            Shape ground = world.CreateBody(tenon_body_kind.Static, tenon_vec3.Zero).AddShape(ShapeDef.HalfSpace(new tenon_vec3(0, 0, 1)));
            Body carried = world.CreateBody(tenon_body_kind.Dynamic, new tenon_vec3(0, 0, 0.5));
            Shape carriedShape = carried.AddShape(ShapeDef.Box(new tenon_vec3(0.5, 0.5, 0.5)));
            Body other = world.CreateBody(tenon_body_kind.Dynamic, new tenon_vec3(0, 3, 0.5));
            other.AddShape(ShapeDef.Box(new tenon_vec3(0.5, 0.5, 0.5)));
            world.SetPreSolve((ref tenon_pre_solve pair) =>
            {
                if (pair.shape_a.Equals(ground.Id) && pair.shape_b.Equals(carriedShape.Id)) pair.surface_velocity = new tenon_vec3(2, 0, 0);
                else if (pair.shape_a.Equals(carriedShape.Id) && pair.shape_b.Equals(ground.Id)) pair.surface_velocity = new tenon_vec3(-2, 0, 0);
                return true;
            });
            for (int k = 0; k < 60; k++)
            {
                world.Step(1.0 / 60.0);
            }
            Console.WriteLine("per-pair conveyor: one box rides at {0:F6} m/s, the other at {1:E1} m/s",
                carried.LinearVelocity.x, other.LinearVelocity.x);
            Expect(Math.Abs(carried.LinearVelocity.x - 2) < 1e-4, "the hook's surface velocity carries its box at 2 m/s");
            Expect(Math.Abs(other.LinearVelocity.x) < 1e-4, "and leaves the other at rest");
        }

        // debug drawing: a resting box's 12 edges of 1 m and its four contact normals
        using (var world = new World())
        {
            world.CreateBody(tenon_body_kind.Static, tenon_vec3.Zero).AddShape(ShapeDef.HalfSpace(new tenon_vec3(0, 0, 1)));
            Body box = world.CreateBody(tenon_body_kind.Dynamic, new tenon_vec3(0, 0, 0.5));
            box.AddShape(ShapeDef.Box(new tenon_vec3(0.5, 0.5, 0.5)));
            world.Step(1.0 / 60.0);
            int edges = 0, normals = 0;
            double longest = 0;
            world.DebugDraw((a, b, kind) =>
            {
                if (kind == tenon_draw_kind.Dynamic)
                {
                    edges++;
                    longest = Math.Max(longest, Math.Sqrt((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y) + (b.z - a.z) * (b.z - a.z)));
                }
                normals += kind == tenon_draw_kind.ContactNormal ? 1 : 0;
            });
            Console.WriteLine("debug draw: {0} edges (longest {1:F12} m), {2} contact normals", edges, longest, normals);
            Expect(edges == 12 && Math.Abs(longest - 1) < 1e-12 && normals == 4, "the box and its contacts drawn");
            bool thrown = false;
            try
            {
                world.DebugDraw((a, b, kind) => { throw new InvalidOperationException("draw"); });
            }
            catch (InvalidOperationException e)
            {
                thrown = e.Message == "draw";
            }
            Expect(thrown, "an exception in the draw callback is thrown again");
            Expect(Throws(() => world.DebugDraw((a, b, kind) => { }, 64)) == tenon_result.InvalidArgument, "unknown draw flags are refused");
        }

        // a hook that calls the world it runs in: WorldLocked, thrown again by Step
        using (var world = new World())
        {
            world.CreateBody(tenon_body_kind.Static, tenon_vec3.Zero).AddShape(ShapeDef.HalfSpace(new tenon_vec3(0, 0, 1)));
            Body box = world.CreateBody(tenon_body_kind.Dynamic, new tenon_vec3(0, 0, 0.5));
            box.AddShape(ShapeDef.Box(new tenon_vec3(0.5, 0.5, 0.5)));
            world.SetPreSolve((ref tenon_pre_solve pair) => box.Position.z > 0);
            Expect(Throws(() => world.Step(1.0 / 60.0)) == tenon_result.WorldLocked, "a hook's call on its world: WORLD_LOCKED from Step");
            // nor dispose it: the step goes on, Dispose throws and Step throws that again
            World self = world;
            world.SetPreSolve((ref tenon_pre_solve pair) =>
            {
                // (a step from the hook is refused first: the guard must still hold after it)
                try { self.Step(1.0 / 60.0); } catch (TenonException) { }
                self.Dispose();
                return true;
            });
            bool refused = false;
            try
            {
                world.Step(1.0 / 60.0);
            }
            catch (InvalidOperationException)
            {
                refused = true;
            }
            Expect(refused && world.BodyCount == 2, "a hook cannot dispose its world");
            world.SetPreSolve(null);
            world.Step(1.0 / 60.0);
            Expect(Math.Abs(box.Position.z - 0.5) < 1e-4, "the box rests on the ground, the hook removed");
        }
    }

    // A ball falling through a trigger box enters and leaves it; shapes that carry arrays (a
    // hull, a mesh, a height field) are passed pinned.
    static void SensorsAndShapes()
    {
        using (var world = new World())
        {
            Shape zone = world.CreateBody(tenon_body_kind.Static, new tenon_vec3(0, 0, 5))
                .AddShape(ShapeDef.Box(new tenon_vec3(1, 1, 0.5)));
            zone.IsSensor = true;
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(0, 0, 10);
            Body ball = world.CreateBody(def);
            Shape shape = ball.AddShape(ShapeDef.Sphere(0.25));
            int begin = -1, end = -1;
            var events = new tenon_sensor_event[4];
            for (int k = 1; k <= 90; k++)
            {
                world.Step(1.0 / 60.0);
                int n = world.GetSensorEvents(events);
                for (int i = 0; i < n; i++)
                {
                    Expect(events[i].sensor.Equals(zone.Id) && events[i].visitor.Equals(shape.Id), "the event's shapes");
                    if (events[i].begin != 0) begin = k; else end = k;
                }
                if (k == begin)
                {
                    Expect(zone.SensorOverlaps().Length == 1, "the ball inside");
                }
            }
            // free fall from 10 m: the bottom reaches 5.5 m at 0.93 s, the top leaves 4.5 m at 1.08 s
            Console.WriteLine("sensor: entered at step {0}, left at step {1}", begin, end);
            Expect(begin == 56 && end == 65, "enter and leave when free fall says");
        }
        using (var world = new World())
        {
            // a cube as a hull: 1000 kg/m^3 over 1 m^3
            var corners = new tenon_vec3[8];
            for (int i = 0; i < 8; i++)
            {
                corners[i] = new tenon_vec3((i & 1) - 0.5, ((i >> 1) & 1) - 0.5, ((i >> 2) & 1) - 0.5);
            }
            Body hull = world.CreateBody(tenon_body_kind.Dynamic, new tenon_vec3(0, 0, 3));
            hull.AddShape(ShapeDef.ConvexHull(corners));
            Expect(Math.Abs(hull.SetMassFromShapes().mass - 1000) < 1e-9, "the hull's mass");
            // the ground as two triangles, and a height field beside it
            var points = new[] { new tenon_vec3(-5, -5, 0), new tenon_vec3(5, -5, 0), new tenon_vec3(5, 5, 0), new tenon_vec3(-5, 5, 0) };
            Body ground = world.CreateBody(tenon_body_kind.Static, tenon_vec3.Zero);
            ground.AddShape(ShapeDef.TriMesh(points, new uint[] { 0, 1, 2, 0, 2, 3 }));
            Body terrain = world.CreateBody(tenon_body_kind.Static, new tenon_vec3(20, 0, 0));
            Expect(Throws2(() => terrain.AddShape(ShapeDef.HeightField(new double[3], 2, 2, new tenon_vec3(5, 5, 1)))),
                   "too few heights: ArgumentException");
            terrain.AddShape(ShapeDef.HeightField(new double[] { 1, 1, 1, 1 }, 2, 2, new tenon_vec3(5, 5, 1)));
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(20, 0, 2);
            Body ball = world.CreateBody(def);
            ball.AddShape(ShapeDef.Sphere(0.5));
            ball.SetMassFromShapes();
            for (int k = 0; k < 120; k++)
            {
                world.Step(1.0 / 60.0);
            }
            Console.WriteLine("hull on a mesh at {0:F6} m, ball on a height field at {1:F6} m", hull.Position.z, ball.Position.z);
            Expect(Math.Abs(hull.Position.z - 0.5) < 1e-4, "the hull rests on the mesh");
            Expect(Math.Abs(ball.Position.z - 1.5) < 1e-4, "the ball rests on the height field (heights 1 m)");
        }
    }

    static bool Throws2(Action call)
    {
        try
        {
            call();
        }
        catch (ArgumentException)
        {
            return true;
        }
        return false;
    }

    // Joints through the structs they take: a bar on a hinge driven by a hard velocity motor at
    // 1 rad/s follows it within eps_p against gravity; a hinged pendulum with limits of +-0.3 rad
    // stays within them; a bob hanging at rest takes m g dt from its joint each step, and its
    // rope, made to break at 1.05 m g, breaks when the bob is pulled with 1.1 m g.
    static void Joints()
    {
        using (var world = new World())
        {
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(0.5, 0, 0);
            def.mass_properties = Mass.SolidBox(2.0, new tenon_vec3(0.5, 0.05, 0.05));
            Body bar = world.CreateBody(def);
            Joint crank = world.CreateJoint(tenon_joint_type.Hinge, Body.None, bar, tenon_vec3.Zero, new tenon_vec3(0, 1, 0));
            var motor = crank.Motor;
            Expect(motor.mode == (uint)tenon_motor_mode.Off, "a motor starts off");
            motor.mode = (uint)tenon_motor_mode.Velocity;
            motor.target_velocity = 1.0;
            motor.max_force = double.PositiveInfinity;
            crank.Motor = motor;
            Expect(crank.Motor.mode == (uint)tenon_motor_mode.Velocity && crank.Type == tenon_joint_type.Hinge, "the motor set");
            double worst = 0, lastDz = 0;
            for (int k = 1; k <= 120; k++)
            {
                double z = bar.Position.z;
                world.Step(1.0 / 60.0);
                lastDz = bar.Position.z - z;
                worst = Math.Max(worst, Math.Abs(Math.Abs(crank.Coordinate) - k / 60.0));
            }
            Console.WriteLine("hinge motor: 2 s at 1 rad/s, angle off by at most {0:E2} rad", worst);
            Expect(worst <= 1e-9, "the hard motor holds 1 rad/s within eps_p");
            // at a constant speed the motor's torque is gravity's about the axis, m g x of the
            // bar's centre; turning about y at 1 rad/s, x dt = dz, so over the last step the
            // impulse is m g |dz| (measured 1.9 % below it)
            double expected = 2.0 * 9.81 * Math.Abs(lastDz);
            Console.WriteLine("hinge motor impulse {0:E6} N m s, gravity's {1:E6}", crank.MotorImpulse, expected);
            Expect(Math.Abs(Math.Abs(crank.MotorImpulse) / expected - 1) < 0.03, "the motor holds the bar against gravity");
        }
        // a spring drive: a 2 kg body on a vertical slider with a 400 N/m spring and a damper
        // rests m g / k below the spring's rest, the spring's impulse m g dt a step
        using (var world = new World())
        {
            var def = Native.tenon_body_def_default();
            def.mass_properties = Mass.SolidSphere(2.0, 0.1);
            Body bob = world.CreateBody(def);
            Joint slide = world.CreateJoint(tenon_joint_type.Slider, Body.None, bob, tenon_vec3.Zero, new tenon_vec3(0, 0, 1));
            var spring = slide.Motor;
            spring.mode = (uint)tenon_motor_mode.Spring;
            spring.stiffness = 400;
            spring.damping = 40;
            slide.Motor = spring;
            Expect(slide.Motor.stiffness == 400 && slide.Motor.damping == 40, "the spring reads back");
            for (int k = 0; k < 300; k++)
            {
                world.Step(1.0 / 60.0);
            }
            double sag = 2.0 * 9.81 / 400;
            Console.WriteLine("spring drive: rests at {0:F9} m (m g / k = {1:F9}), {2:F6} N s a step", bob.Position.z, -sag, slide.MotorImpulse);
            Expect(Math.Abs(bob.Position.z + sag) < 1e-9, "the spring holds the weight at m g / k");
            Expect(Math.Abs(slide.MotorImpulse - 2.0 * 9.81 / 60.0) < 1e-9, "its impulse is m g dt");
        }
        using (var world = new World())
        {
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(1, 0, 0);
            def.mass_properties = Mass.SolidSphere(1.0, 0.05);
            Body bob = world.CreateBody(def);
            Joint hinge = world.CreateJoint(tenon_joint_type.Hinge, Body.None, bob, tenon_vec3.Zero, new tenon_vec3(0, 1, 0));
            var limits = hinge.Limits;
            limits.lower = -0.3;
            limits.upper = 0.3;
            hinge.Limits = limits;
            double most = 0;
            for (int k = 0; k < 120; k++)
            {
                world.Step(1.0 / 60.0);
                most = Math.Max(most, Math.Abs(hinge.Coordinate));
            }
            Console.WriteLine("hinge limits +-0.3 rad: reached {0:F12} rad", most);
            Expect(most <= 0.3 + 1e-9 && most > 0.29, "the limit holds");
        }
        using (var world = new World())
        {
            // a ball joint's servo (5 N m) turns a bar a quarter turn about z without gravity
            world.Gravity = tenon_vec3.Zero;
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(0.5, 0, 0);
            def.mass_properties = Mass.SolidBox(1.0, new tenon_vec3(0.5, 0.01, 0.01));
            Body bar = world.CreateBody(def);
            Joint shoulder = world.CreateJoint(tenon_joint_type.Ball, Body.None, bar, tenon_vec3.Zero, new tenon_vec3(1, 0, 0));
            var servo = shoulder.Motor;
            servo.mode = (uint)tenon_motor_mode.Position;
            servo.max_force = 5.0;
            shoulder.Motor = servo;
            var quarter = new tenon_quat(0, 0, Math.Sqrt(0.5), Math.Sqrt(0.5));
            Expect(Native.tenon_joint_def_default().motor_rotation.w == 1.0, "a def's servo target is the identity");
            shoulder.MotorRotation = quarter;
            Expect(Math.Abs(shoulder.MotorRotation.z - Math.Sqrt(0.5)) < 1e-15, "the servo's target set");
            Expect(Throws(() => shoulder.MotorRotation = new tenon_quat(0, 0, 0, 2)) == tenon_result.InvalidRotation,
                   "a non-unit target: INVALID_ROTATION");
            for (int k = 0; k < 120; k++) world.Step(1.0 / 60.0);
            tenon_vec3 p = bar.Position;
            Console.WriteLine("ball servo: the bar's centre at ({0:F12}, {1:F12}, {2:F12}) m", p.x, p.y, p.z);
            Expect(Math.Abs(p.x) < 1e-9 && Math.Abs(p.y - 0.5) < 1e-9, "the servo turned the bar a quarter turn");
        }
        using (var world = new World())
        {
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(0, 0, -1);
            def.mass_properties = Mass.SolidSphere(3.0, 0.05);
            Body bob = world.CreateBody(def);
            Joint rod = world.CreateJoint(tenon_joint_type.Ball, Body.None, bob, tenon_vec3.Zero, new tenon_vec3(1, 0, 0));
            world.Step(1.0 / 60.0);
            tenon_vec3 linear, angular;
            rod.GetReactionImpulse(out linear, out angular);
            Expect(Math.Abs(linear.z - 3.0 * 9.81 / 60.0) < 1e-9 && Math.Abs(linear.x) < 1e-12, "the joint holds the bob up: m g dt");
            Body a, b;
            rod.GetBodies(out a, out b);
            Expect(a.IsNull && b.Equals(bob), "the joint's bodies");
            Expect(bob.Joints().Length == 1 && world.JointIds()[0].Equals(rod.Id), "the joint listed");
            // made to break at 1.05 m g, then pulled down with 0.1 m g more
            double mg = 3.0 * 9.81;
            rod.SetBreakForce(1.05 * mg, double.PositiveInfinity);
            double f, t;
            rod.GetBreakForce(out f, out t);
            Expect(f == 1.05 * mg && double.IsPositiveInfinity(t), "the break force set");
            Expect(Throws(() => rod.SetBreakForce(double.NaN, 1)) == tenon_result.NonFinite, "NaN break force: NON_FINITE");
            world.Step(1.0 / 60.0);
            Expect(world.JointBreaks().Length == 0, "it holds m g");
            bob.ApplyForce(new tenon_vec3(0, 0, -0.1 * mg), bob.Position);
            world.Step(1.0 / 60.0);
            tenon_joint_break[] broke = world.JointBreaks();
            Console.WriteLine("joint break at {0:F6} N (1.1 m g = {1:F6} N)", broke.Length > 0 ? broke[0].force : 0, 1.1 * mg);
            Expect(broke.Length == 1 && broke[0].joint.Equals(rod.Id) && Math.Abs(broke[0].force - 1.1 * mg) < 1e-9,
                   "the rope breaks at 1.1 m g");
            Expect(world.JointCount == 0 && Throws(() => { var v = rod.Violation; }) == tenon_result.InvalidHandle,
                   "the broken joint is destroyed");
        }
    }

    // Bad input: an exception with the C code, and nothing changed.
    static void Errors()
    {
        var world = new World();
        Body a = world.CreateBody(tenon_body_kind.Dynamic, tenon_vec3.Zero);
        var def = Native.tenon_body_def_default();
        def.mass_properties.mass = double.NaN;
        Expect(Throws(() => world.CreateBody(def)) == tenon_result.NonFinite, "NaN mass: NON_FINITE");
        def = Native.tenon_body_def_default();
        def.mass_properties.mass = 0;
        Expect(Throws(() => world.CreateBody(def)) == tenon_result.InvalidMass, "zero mass: INVALID_MASS");
        Expect(Throws(() => world.CreateJoint(tenon_joint_type.Hinge, a, a, tenon_vec3.Zero, new tenon_vec3(1, 0, 0)))
               == tenon_result.SameBody, "a joint to itself: SAME_BODY");
        Expect(Throws2(() => world.CreateJoint(tenon_joint_type.Distance, Body.None, a, tenon_vec3.Zero, new tenon_vec3(1, 0, 0))),
               "a distance joint from one world frame: ArgumentException");
        Expect(Throws(() => world.Step(0)) == tenon_result.InvalidArgument, "zero step: INVALID_ARGUMENT");
        Expect(Throws(() => a.SetVelocity(new tenon_vec3(double.NaN, 0, 0), tenon_vec3.Zero)) == tenon_result.NonFinite,
               "NaN velocity: NON_FINITE");
        Expect(world.BodyCount == 1 && world.JointCount == 0 && world.Time == 0 && a.LinearVelocity.x == 0,
               "nothing changed");
        try
        {
            world.EpsP = -1;
            Expect(false, "a negative eps_p throws");
        }
        catch (TenonException e)
        {
            Expect(e.Code == tenon_result.InvalidArgument && e.Message.Contains("eps_p"),
                   "the message names what was wrong: " + e.Message);
        }
        a.Destroy();
        Expect(Throws(() => { var p = a.Position; }) == tenon_result.InvalidHandle, "a destroyed body: INVALID_HANDLE");
        Body b = world.CreateBody(tenon_body_kind.Dynamic, tenon_vec3.Zero);
        world.Dispose();
        world.Dispose();
        Expect(Throws(() => { var p = b.Position; }) == tenon_result.WorldDestroyed, "a body of a destroyed world: WORLD_DESTROYED");
        bool disposed = false;
        try
        {
            world.Step(0.01);
        }
        catch (ObjectDisposedException)
        {
            disposed = true;
        }
        Expect(disposed, "a disposed world throws ObjectDisposedException");
    }

    // Snapshots: a pendulum saved, stepped, restored and stepped again ends where it did to the
    // bit; a clone steps ahead while the original stays; a world is not copied onto itself.
    static void Snapshots()
    {
        using (var world = new World())
        using (var snapshot = new World())
        {
            var def = Native.tenon_body_def_default();
            def.position = new tenon_vec3(1, 0, 0);
            Body bob = world.CreateBody(def);
            Joint pivot = world.CreateJoint(tenon_joint_type.Ball, Body.None, bob, tenon_vec3.Zero, new tenon_vec3(1, 0, 0));
            snapshot.CopyFrom(world);
            for (int k = 0; k < 30; k++)
            {
                world.Step(1.0 / 60.0);
            }
            tenon_vec3 first = bob.Position;
            world.CopyFrom(snapshot);
            Expect(bob.Position.x == 1.0 && world.Time == 0.0, "restored to the saved moment");
            for (int k = 0; k < 30; k++)
            {
                world.Step(1.0 / 60.0);
            }
            tenon_vec3 again = bob.Position;
            Console.WriteLine("snapshots: after a restore the bob is at ({0:R}, {1:R}), first ({2:R}, {3:R})",
                              again.x, again.z, first.x, first.z);
            Expect(first.x == again.x && first.y == again.y && first.z == again.z && first.z < -0.5,
                   "a restored world replays its steps to the bit");
            using (var ahead = world.Clone())
            {
                Body bobAhead = ahead.IdOf(bob);
                Expect(ahead.IdOf(pivot).Violation <= 1e-9, "the copy's joint");
                for (int k = 0; k < 10; k++)
                {
                    ahead.Step(1.0 / 60.0);
                }
                Expect(bobAhead.Position.x != bob.Position.x && bob.Position.x == again.x,
                       "the clone steps ahead, the original stays");
            }
            try
            {
                world.CopyFrom(world);
                Expect(false, "a world copied onto itself throws");
            }
            catch (TenonException e)
            {
                Expect(e.Code == tenon_result.InvalidArgument, "copying a world onto itself: InvalidArgument");
            }
        }
    }

    static int Main()
    {
        Console.WriteLine("Tenon " + Library.Version + " from C# (bindings " + Library.BindingsVersion + ")");
        Expect(Library.IsCompatible, "the library serves these bindings");
        uint n = Library.BindingsVersionNumber;
        Expect(Library.Compatible(n + 1) && !Library.Compatible(n + 10000), "a newer patch serves, a newer major not");
        Expect(Library.Compatible(n + 100) == (n >= 10000), "a newer minor serves from 1.0 on only");
        Expect(Library.Version == Library.BindingsVersion, "the library is the one the bindings were generated from");
        Layouts();
        Pendulum();
        HeavyChain();
        BoxOnGround();
        BodyPoses();
        Joints();
        PreSolve();
        SensorsAndShapes();
        Snapshots();
        Errors();
        if (failures > 0)
        {
            Console.Error.WriteLine(failures + " checks failed");
            return 1;
        }
        Console.WriteLine("all checks passed");
        return 0;
    }
}
