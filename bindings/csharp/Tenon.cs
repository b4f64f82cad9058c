// Tenon.cs - the C# layer over the Tenon C API, for Unity and .NET.
//
// * Tenon.Native.g.cs is generated from the library's source with every function, struct and
//   enum of include/tenon.h under the same names (Tenon.Native.tenon_world_step, tenon_vec3, ...).
//   This file adds a safe layer over it: World owns a world (IDisposable, with a SafeHandle that
//   destroys it if it is never disposed); Body, Joint and Shape are value types wrapping the C ids,
//   with properties and methods for the calls on them.
// * A failed call throws TenonException: its Code is the C API's tenon_result and its Message the
//   library's message for the failure. A failed call changes nothing.
// * Keep the World referenced (in a field) while its bodies, joints and shapes are used: they
//   hold only ids, and a World the garbage collector finds unreferenced is destroyed (their calls
//   then throw with Code WorldDestroyed).
// * Copy-out calls take a caller array and return the number of items there are; when the array
//   is too short nothing is copied (call again with a larger one). They allocate nothing, so a
//   game can sync its transforms every frame without garbage. Convenience overloads without an
//   array allocate one of the right size.
// * Units SI, frames and threading as in tenon.h: one World is used from one thread at a time.
//
// Build with unsafe code allowed (Unity: "Allow 'unsafe' code" in the assembly definition; csc or
// mcs: -unsafe). The native library is found as "tenon": libtenon.so, tenon.dll or libtenon.dylib
// next to the plugin (Unity: under Assets/Plugins).
using System;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using System.Text;

#if !UNITY_5_3_OR_NEWER
namespace AOT
{
    /// <summary>
    /// Marks a static method native code calls back, so that ahead-of-time compilers (Unity's
    /// IL2CPP) make it callable. Unity has its own; this one stands in elsewhere.
    /// </summary>
    [AttributeUsage(AttributeTargets.Method)]
    public sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type type)
        {
            Type = type;
        }

        public Type Type { get; private set; }
    }
}
#endif

namespace Tenon
{
    /// <summary>
    /// Decides whether a pair of shapes makes its contact points in this (sub)step, and may
    /// change pair.material for it (World.SetPreSolve). Called inside World.Step: calls on the
    /// same world throw (WorldLocked).
    /// </summary>
    public delegate bool PreSolveHandler(ref tenon_pre_solve pair);

    /// <summary>A failed call of the Tenon C API.</summary>
    public sealed class TenonException : Exception
    {
        /// <summary>The C API's result code (never Ok).</summary>
        public tenon_result Code { get; private set; }

        TenonException(tenon_result code, string message) : base(message)
        {
            Code = code;
        }

        /// <summary>Throws if <paramref name="code"/> is not Ok, with the message of the failure.</summary>
        public static void Check(tenon_result code)
        {
            if (code != tenon_result.Ok)
            {
                throw new TenonException(code, ResultName(code) + ": " + LastErrorMessage());
            }
        }

        /// <summary>"TENON_RESULT_..." for a result code.</summary>
        public static unsafe string ResultName(tenon_result code)
        {
            return Utf8(Native.tenon_result_str((uint)code));
        }

        /// <summary>The message of the last failed call on this thread (empty if none).</summary>
        public static unsafe string LastErrorMessage()
        {
            UIntPtr len;
            if (Native.tenon_last_error_message(null, UIntPtr.Zero, &len) != tenon_result.Ok)
            {
                return "";
            }
            var buf = new byte[(int)len.ToUInt64() + 1];
            fixed (byte* p = buf)
            {
                if (Native.tenon_last_error_message(p, (UIntPtr)buf.Length, &len) != tenon_result.Ok)
                {
                    return "";
                }
            }
            return Encoding.UTF8.GetString(buf, 0, buf.Length - 1);
        }

        internal static unsafe string Utf8(byte* s)
        {
            if (s == null)
            {
                return "";
            }
            int n = 0;
            while (s[n] != 0)
            {
                n++;
            }
            return Encoding.UTF8.GetString(s, n);
        }
    }

    /// <summary>The library's version.</summary>
    public static partial class Library
    {
        /// <summary>"MAJOR.MINOR.PATCH" of the loaded library.</summary>
        public static unsafe string Version
        {
            get { return TenonException.Utf8(Native.tenon_version()); }
        }

        /// <summary>The loaded library's version number (major * 10000 + minor * 100 + patch).</summary>
        public static uint VersionNumber
        {
            get { return Native.tenon_version_number(); }
        }

        /// <summary>
        /// Whether the loaded library can serve these bindings: the same ABI (the structs'
        /// layouts: the same major version, and before 1.0 the same minor one) and a version at
        /// least theirs. Check it once before any other call.
        /// </summary>
        public static bool IsCompatible
        {
            get { return Compatible(VersionNumber); }
        }

        /// <summary>
        /// Whether a library of version number <paramref name="v"/> can serve these bindings
        /// (the rule of <see cref="IsCompatible"/>, TENON_VERSION_COMPATIBLE in C).
        /// </summary>
        public static bool Compatible(uint v)
        {
            bool sameAbi = v / 10000 == BindingsVersionNumber / 10000
                && (BindingsVersionNumber >= 10000 || v / 100 == BindingsVersionNumber / 100);
            return sameAbi && v >= BindingsVersionNumber;
        }
    }

    /// <summary>Mass properties of solids of uniform density.</summary>
    public static unsafe class Mass
    {
        /// <summary>A box of <paramref name="mass"/> kg and half extents (m) along its local axes.</summary>
        public static tenon_mass_properties SolidBox(double mass, tenon_vec3 halfExtents)
        {
            tenon_mass_properties m;
            TenonException.Check(Native.tenon_mass_solid_box(mass, halfExtents, &m));
            return m;
        }

        /// <summary>A ball of <paramref name="mass"/> kg and <paramref name="radius"/> m.</summary>
        public static tenon_mass_properties SolidSphere(double mass, double radius)
        {
            tenon_mass_properties m;
            TenonException.Check(Native.tenon_mass_solid_sphere(mass, radius, &m));
            return m;
        }
    }

    public partial struct tenon_vec3
    {
        public tenon_vec3(double x, double y, double z)
        {
            this.x = x;
            this.y = y;
            this.z = z;
        }

        public static readonly tenon_vec3 Zero = new tenon_vec3(0, 0, 0);

        public override string ToString()
        {
            return "(" + x + ", " + y + ", " + z + ")";
        }
    }

    public partial struct tenon_quat
    {
        public tenon_quat(double x, double y, double z, double w)
        {
            this.x = x;
            this.y = y;
            this.z = z;
            this.w = w;
        }

        public static readonly tenon_quat Identity = new tenon_quat(0, 0, 0, 1);

        /// <summary>The rotation by <paramref name="angle"/> (rad) about <paramref name="axis"/> (any nonzero length).</summary>
        public static tenon_quat FromAxisAngle(tenon_vec3 axis, double angle)
        {
            double n = Math.Sqrt(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
            double s = Math.Sin(0.5 * angle) / n;
            return new tenon_quat(axis.x * s, axis.y * s, axis.z * s, Math.Cos(0.5 * angle));
        }

        public override string ToString()
        {
            return "(" + x + ", " + y + ", " + z + ", " + w + ")";
        }
    }

    public partial struct tenon_body_id : IEquatable<tenon_body_id>
    {
        public bool IsNull { get { return index1 == 0 && world == 0; } }
        public bool Equals(tenon_body_id o) { return index1 == o.index1 && world == o.world && generation == o.generation; }
        public override bool Equals(object o) { return o is tenon_body_id && Equals((tenon_body_id)o); }
        public override int GetHashCode() { return (int)index1 ^ (world << 16) ^ (generation << 8); }
    }

    public partial struct tenon_joint_id : IEquatable<tenon_joint_id>
    {
        public bool IsNull { get { return index1 == 0 && world == 0; } }
        public bool Equals(tenon_joint_id o) { return index1 == o.index1 && world == o.world && generation == o.generation; }
        public override bool Equals(object o) { return o is tenon_joint_id && Equals((tenon_joint_id)o); }
        public override int GetHashCode() { return (int)index1 ^ (world << 16) ^ (generation << 8); }
    }

    public partial struct tenon_shape_id : IEquatable<tenon_shape_id>
    {
        public bool IsNull { get { return index1 == 0 && world == 0; } }
        public bool Equals(tenon_shape_id o) { return index1 == o.index1 && world == o.world && generation == o.generation; }
        public override bool Equals(object o) { return o is tenon_shape_id && Equals((tenon_shape_id)o); }
        public override int GetHashCode() { return (int)index1 ^ (world << 16) ^ (generation << 8); }
    }

    /// <summary>
    /// Owns a world id: destroys the world when disposed, or when collected if it never was.
    /// The id's 32 bits are the handle's value (ids are 1-based, so 0 is invalid).
    /// </summary>
    public sealed class WorldHandle : SafeHandle
    {
        internal WorldHandle(tenon_world_id id) : base(IntPtr.Zero, true)
        {
            // (an int's bits, so that 32-bit runtimes take every generation)
            SetHandle(new IntPtr(unchecked((int)((uint)id.index1 | ((uint)id.generation << 16)))));
        }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        internal tenon_world_id Id
        {
            get
            {
                uint v = unchecked((uint)handle.ToInt32());
                var id = new tenon_world_id();
                id.index1 = (ushort)(v & 0xffff);
                id.generation = (ushort)(v >> 16);
                return id;
            }
        }

        protected override bool ReleaseHandle()
        {
            return Native.tenon_world_destroy(Id) == tenon_result.Ok;
        }
    }

    /// <summary>
    /// A simulation world. Dispose it (or let it be collected) to destroy the world; its bodies,
    /// joints and shapes go with it and their ids become invalid.
    /// </summary>
    public sealed unsafe class World : IDisposable
    {
        readonly WorldHandle handle;
        // the pre-solve hook, a weak handle to this world (the hook's context), and the first
        // exception the hook threw in the step being taken
        PreSolveHandler preSolve;
        GCHandle self;
        Exception hookException;
        int stepping;

        /// <summary>A world with the default settings (gravity -9.81 m/s^2 along z, eps_p 1e-9).</summary>
        public World() : this(Native.tenon_world_def_default()) { }

        /// <summary>A world from a def filled by Native.tenon_world_def_default() and then changed.</summary>
        public World(tenon_world_def def)
        {
            tenon_world_id id;
            TenonException.Check(Native.tenon_world_create(&def, &id));
            handle = new WorldHandle(id);
        }

        /// <summary>Destroys the world now. Not from its own pre-solve hook (InvalidOperationException).</summary>
        public void Dispose()
        {
            if (stepping > 0)
            {
                // (the library holds the hook's context until the step ends)
                throw new InvalidOperationException("a World cannot be disposed while it steps (from its own pre-solve hook)");
            }
            if (handle.IsClosed)
            {
                return;
            }
            tenon_world_id id = handle.Id;
            handle.Dispose();
            // the hook's context is freed only with the world (one stepping on another thread
            // is not destroyed: the library still holds it)
            double t;
            if (Native.tenon_world_get_time(id, &t) == tenon_result.WorldDestroyed)
            {
                FreeSelf();
            }
            GC.SuppressFinalize(this);
        }

        ~World()
        {
            FreeSelf();
        }

        void FreeSelf()
        {
            if (self.IsAllocated)
            {
                self.Free();
            }
        }

        /// <summary>The C id (for calls on Native directly).</summary>
        public tenon_world_id Id
        {
            get
            {
                if (handle.IsClosed)
                {
                    throw new ObjectDisposedException("World");
                }
                return handle.Id;
            }
        }

        /// <summary>Advances the world by <paramref name="dt"/> seconds and returns the step's report.</summary>
        public tenon_step_report Step(double dt)
        {
            tenon_step_report r;
            tenon_result code;
            stepping++;
            try
            {
                code = Native.tenon_world_step(Id, dt, &r);
            }
            finally
            {
                stepping--;
            }
            GC.KeepAlive(this);
            if (hookException != null)
            {
                // (the step itself went on: the pair was kept)
                var e = hookException;
                hookException = null;
                ExceptionDispatchInfo.Capture(e).Throw();
            }
            TenonException.Check(code);
            return r;
        }

        /// <summary>
        /// Sets the pre-solve hook (null removes it): after detection finds a pair of shapes with
        /// contact points in a (sub)step (filters and joints passed, sensors never), the handler
        /// sees the pair and returns whether it makes its points in this (sub)step. A pair turned
        /// down exerts nothing (its bodies touch for the contact events only through another pair). It is asked again in
        /// every substep and retaken frame, so it should decide from what it is given the same
        /// way each time. One-way platforms: keep a pair with the platform only while the normal
        /// points up from the platform, the other shape is at most a little into it and not
        /// moving up through it. An exception the handler throws keeps the pair and is thrown
        /// again by Step. A pair of a sleeping body and a static one is not asked: wake the body
        /// when the decision about it changes. The handler cannot dispose its world.
        /// </summary>
        public void SetPreSolve(PreSolveHandler handler)
        {
            if (handler == null)
            {
                TenonException.Check(Native.tenon_world_set_pre_solve(Id, null, null));
                preSolve = null;
                return;
            }
            if (!self.IsAllocated)
            {
                self = GCHandle.Alloc(this, GCHandleType.Weak);
            }
            TenonException.Check(Native.tenon_world_set_pre_solve(Id, Trampoline, (void*)GCHandle.ToIntPtr(self)));
            preSolve = handler;
        }

        // One delegate for every world, alive as long as the program: the native hook it stands for
        // stays valid.
        static readonly Native.tenon_world_set_pre_solve_hook_delegate Trampoline = PreSolveTrampoline;

        [AOT.MonoPInvokeCallback(typeof(Native.tenon_world_set_pre_solve_hook_delegate))]
        static uint PreSolveTrampoline(tenon_pre_solve* pair, void* context)
        {
            World world = null;
            // (no exception may cross the native frames)
            try
            {
                world = GCHandle.FromIntPtr((IntPtr)context).Target as World;
                if (world == null || world.preSolve == null)
                {
                    return 1;
                }
                return world.preSolve(ref *pair) ? 1u : 0u;
            }
            catch (Exception e)
            {
                if (world != null && world.hookException == null)
                {
                    world.hookException = e;
                }
                return 1;
            }
        }

        /// <summary>Receives one segment of <see cref="DebugDraw"/>: its ends (world frame, m) and what it belongs to.</summary>
        public delegate void DrawSegment(tenon_vec3 a, tenon_vec3 b, tenon_draw_kind kind);

        /// <summary>
        /// Draws the world as line segments for a debug view (Gizmos.DrawLine, Debug.DrawLine): calls
        /// <paramref name="segment"/> for each before it returns. <paramref name="flags"/> mixes
        /// TENON_DRAW_SHAPES, TENON_DRAW_JOINTS and TENON_DRAW_CONTACTS; joint axes and contact normals are
        /// <paramref name="axisLength"/> long, contact impulses <paramref name="impulseScale"/> metres per N s.
        /// After an exception the callback throws, the remaining segments are skipped and the exception is
        /// thrown again here.
        /// </summary>
        public void DebugDraw(DrawSegment segment, uint flags = Native.TENON_DRAW_SHAPES | Native.TENON_DRAW_JOINTS | Native.TENON_DRAW_CONTACTS,
            double axisLength = 0.25, double impulseScale = 0.01)
        {
            if (segment == null)
            {
                throw new ArgumentNullException("segment");
            }
            var call = new DrawCall { Segment = segment };
            GCHandle handle = GCHandle.Alloc(call);
            try
            {
                TenonException.Check(Native.tenon_world_debug_draw(Id, flags, axisLength, impulseScale, DrawTrampoline,
                    (void*)GCHandle.ToIntPtr(handle)));
            }
            finally
            {
                handle.Free();
            }
            if (call.Error != null)
            {
                ExceptionDispatchInfo.Capture(call.Error).Throw();
            }
        }

        sealed class DrawCall
        {
            public DrawSegment Segment;
            public Exception Error;
        }

        static readonly Native.tenon_world_debug_draw_segment_delegate DrawTrampoline = DrawSegmentTrampoline;

        [AOT.MonoPInvokeCallback(typeof(Native.tenon_world_debug_draw_segment_delegate))]
        static void DrawSegmentTrampoline(tenon_vec3 a, tenon_vec3 b, tenon_draw_kind kind, void* context)
        {
            var call = GCHandle.FromIntPtr((IntPtr)context).Target as DrawCall;
            // (no exception may cross the native frames)
            if (call == null || call.Error != null)
            {
                return;
            }
            try
            {
                call.Segment(a, b, kind);
            }
            catch (Exception e)
            {
                call.Error = e;
            }
        }

        /// <summary>The report of the last step.</summary>
        public tenon_step_report StepReport
        {
            get { tenon_step_report r; TenonException.Check(Native.tenon_world_get_step_report(Id, &r)); return r; }
        }

        public tenon_vec3 Gravity
        {
            get { tenon_vec3 v; TenonException.Check(Native.tenon_world_get_gravity(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_world_set_gravity(Id, value)); }
        }

        /// <summary>Tolerance of the joints (m or rad), default 1e-9.</summary>
        public double EpsP
        {
            get { double v; TenonException.Check(Native.tenon_world_get_eps_p(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_world_set_eps_p(Id, value)); }
        }

        /// <summary>Tikhonov factor of closed loops' redundant rows.</summary>
        public double EpsT
        {
            get { double v; TenonException.Check(Native.tenon_world_get_eps_t(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_world_set_eps_t(Id, value)); }
        }

        public uint MaxIterations
        {
            get { uint v; TenonException.Check(Native.tenon_world_get_max_iterations(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_world_set_max_iterations(Id, value)); }
        }

        public uint MaxSubsteps
        {
            get { uint v; TenonException.Check(Native.tenon_world_get_max_substeps(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_world_set_max_substeps(Id, value)); }
        }

        public bool GeometricStiffness
        {
            get { uint v; TenonException.Check(Native.tenon_world_get_geometric_stiffness(Id, &v)); return v != 0; }
            set { TenonException.Check(Native.tenon_world_set_geometric_stiffness(Id, value ? 1u : 0u)); }
        }

        /// <summary>Worker threads for islands and large factorizations (1 by default).</summary>
        public uint Threads
        {
            get { uint v; TenonException.Check(Native.tenon_world_get_threads(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_world_set_threads(Id, value)); }
        }

        /// <summary>
        /// Makes this world a copy of <paramref name="other"/> (tenon_world_copy): it then steps
        /// bit for bit as <paramref name="other"/> would. This world keeps its own pre-solve hook.
        /// Save with <c>snapshot.CopyFrom(world)</c>, restore with <c>world.CopyFrom(snapshot)</c>
        /// (rollback, a reset): the bodies, joints and shapes of the saved moment are valid again.
        /// </summary>
        public void CopyFrom(World other)
        {
            if (other == null)
            {
                throw new ArgumentNullException("other");
            }
            TenonException.Check(Native.tenon_world_copy(Id, other.Id));
        }

        /// <summary>A new world that is a copy of this one, without a pre-solve hook (a look ahead).</summary>
        public World Clone()
        {
            var copy = new World();
            try
            {
                copy.CopyFrom(this);
            }
            catch
            {
                copy.Dispose();
                throw;
            }
            return copy;
        }

        /// <summary>This world's body (a copy's) that is <paramref name="other"/> in the world it was copied from.</summary>
        public Body IdOf(Body other)
        {
            tenon_body_id v;
            TenonException.Check(Native.tenon_body_id_in_world(other.Id, Id, &v));
            return new Body(v);
        }

        /// <summary>This world's joint (a copy's) that is <paramref name="other"/> in the world it was copied from.</summary>
        public Joint IdOf(Joint other)
        {
            tenon_joint_id v;
            TenonException.Check(Native.tenon_joint_id_in_world(other.Id, Id, &v));
            return new Joint(v);
        }

        /// <summary>This world's shape (a copy's) that is <paramref name="other"/> in the world it was copied from.</summary>
        public Shape IdOf(Shape other)
        {
            tenon_shape_id v;
            TenonException.Check(Native.tenon_shape_id_in_world(other.Id, Id, &v));
            return new Shape(v);
        }

        public tenon_ordering Ordering
        {
            get { uint v; TenonException.Check(Native.tenon_world_get_ordering(Id, &v)); return (tenon_ordering)v; }
            set { TenonException.Check(Native.tenon_world_set_ordering(Id, (uint)value)); }
        }

        public tenon_sleep_settings SleepSettings
        {
            get { tenon_sleep_settings v; TenonException.Check(Native.tenon_world_get_sleep_settings(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_world_set_sleep_settings(Id, value)); }
        }

        public tenon_contact_settings ContactSettings
        {
            get { tenon_contact_settings v; TenonException.Check(Native.tenon_world_get_contact_settings(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_world_set_contact_settings(Id, value)); }
        }

        /// <summary>Simulated time (s).</summary>
        public double Time
        {
            get { double v; TenonException.Check(Native.tenon_world_get_time(Id, &v)); return v; }
        }

        public int BodyCount
        {
            get { UIntPtr v; TenonException.Check(Native.tenon_world_get_body_count(Id, &v)); return (int)v.ToUInt64(); }
        }

        public int JointCount
        {
            get { UIntPtr v; TenonException.Check(Native.tenon_world_get_joint_count(Id, &v)); return (int)v.ToUInt64(); }
        }

        public int SleepingBodyCount
        {
            get { UIntPtr v; TenonException.Check(Native.tenon_world_get_sleeping_body_count(Id, &v)); return (int)v.ToUInt64(); }
        }

        /// <summary>The largest violation of any joint now (m or rad).</summary>
        public double MaxJointViolation
        {
            get { double v; TenonException.Check(Native.tenon_world_get_max_joint_violation(Id, &v)); return v; }
        }

        public double KineticEnergy
        {
            get { double v; TenonException.Check(Native.tenon_world_get_kinetic_energy(Id, &v)); return v; }
        }

        public double PotentialEnergy
        {
            get { double v; TenonException.Check(Native.tenon_world_get_potential_energy(Id, &v)); return v; }
        }

        public tenon_warnings Warnings
        {
            get { tenon_warnings v; TenonException.Check(Native.tenon_world_get_warnings(Id, &v)); return v; }
        }

        public tenon_contact_report ContactReport
        {
            get { tenon_contact_report v; TenonException.Check(Native.tenon_world_get_contact_report(Id, &v)); return v; }
        }

        /// <summary>Creates a body from a def filled by Native.tenon_body_def_default() and then changed.</summary>
        public Body CreateBody(tenon_body_def def)
        {
            tenon_body_id id;
            TenonException.Check(Native.tenon_body_create(Id, &def, &id));
            return new Body(id);
        }

        /// <summary>A body of the given kind at a position, with the def's other defaults (a 1 kg solid cube of 1 m).</summary>
        public Body CreateBody(tenon_body_kind kind, tenon_vec3 position)
        {
            var def = Native.tenon_body_def_default();
            def.kind = (uint)kind;
            def.position = position;
            return CreateBody(def);
        }

        /// <summary>Creates a joint from a def filled by Native.tenon_joint_def_default() and then changed.</summary>
        public Joint CreateJoint(tenon_joint_def def)
        {
            tenon_joint_id id;
            TenonException.Check(Native.tenon_joint_create(Id, &def, &id));
            return new Joint(id);
        }

        /// <summary>
        /// A joint of <paramref name="type"/> between <paramref name="a"/> (default(Body) for the
        /// world) and <paramref name="b"/>, at <paramref name="anchor"/> with its axis along
        /// <paramref name="axis"/> (both in the world, at the bodies' current poses).
        /// </summary>
        public Joint CreateJoint(tenon_joint_type type, Body a, Body b, tenon_vec3 anchor, tenon_vec3 axis)
        {
            if (type == tenon_joint_type.Distance)
            {
                throw new ArgumentException(
                    "a distance joint has an anchor on each body: fill a tenon_joint_def (frame_a, frame_b, distance)");
            }
            var def = Native.tenon_joint_def_default();
            def.@type = (uint)type;
            def.body_a = a.Id;
            def.body_b = b.Id;
            TenonException.Check(Native.tenon_joint_def_set_world_frame(Id, &def, anchor, axis));
            return CreateJoint(def);
        }

        /// <summary>
        /// Copies every live body's id, position and rotation (slot order) into the arrays (any may
        /// be null to skip it; those given must be equally long). Returns the number of bodies:
        /// when it exceeds the arrays' length, nothing was copied.
        /// </summary>
        public int GetBodyPoses(tenon_body_id[] ids, tenon_vec3[] positions, tenon_quat[] rotations)
        {
            int cap = Capacity(ids, positions, rotations);
            UIntPtr n;
            fixed (tenon_body_id* pi = ids)
            fixed (tenon_vec3* pp = positions)
            fixed (tenon_quat* pr = rotations)
            {
                Copied(Native.tenon_world_get_body_poses(Id, pi, pp, pr, (UIntPtr)cap, &n));
            }
            return (int)n.ToUInt64();
        }

        /// <summary>The report of every island of the last step; returns their number (nothing copied when it exceeds the array).</summary>
        public int GetIslandReports(tenon_island_report[] reports)
        {
            UIntPtr n;
            fixed (tenon_island_report* p = reports)
            {
                Copied(Native.tenon_world_get_island_reports(Id, p, Length(reports), &n));
            }
            return (int)n.ToUInt64();
        }

        public tenon_island_report[] IslandReports()
        {
            return Grow<tenon_island_report>(GetIslandReports);
        }

        /// <summary>Every live joint's id (creation order); returns their number.</summary>
        public int GetJointIds(tenon_joint_id[] ids)
        {
            UIntPtr n;
            fixed (tenon_joint_id* p = ids)
            {
                Copied(Native.tenon_world_get_joint_ids(Id, p, Length(ids), &n));
            }
            return (int)n.ToUInt64();
        }

        public tenon_joint_id[] JointIds()
        {
            return Grow<tenon_joint_id>(GetJointIds);
        }

        /// <summary>The contact points of the last step; returns their number.</summary>
        public int GetContacts(tenon_contact[] contacts)
        {
            UIntPtr n;
            fixed (tenon_contact* p = contacts)
            {
                Copied(Native.tenon_world_copy_contacts(Id, p, Length(contacts), &n));
            }
            return (int)n.ToUInt64();
        }

        public tenon_contact[] Contacts()
        {
            return Grow<tenon_contact>(GetContacts);
        }

        /// <summary>The pairs of bodies that began or stopped touching in the last step; returns their number.</summary>
        public int GetContactEvents(tenon_contact_event[] events)
        {
            tenon_contact_event* data;
            UIntPtr n;
            TenonException.Check(Native.tenon_world_get_contact_events(Id, &data, &n));
            return CopyView(data, (int)n.ToUInt64(), events, sizeof(tenon_contact_event));
        }

        public tenon_contact_event[] ContactEvents()
        {
            return Grow<tenon_contact_event>(GetContactEvents);
        }

        /// <summary>The bodies that moved in the last step, with their end poses and user data (those that fell asleep marked); the sleeping ones are not listed, so syncing these alone syncs every body that moved. Returns their number.</summary>
        public int GetBodyMoveEvents(tenon_body_move_event[] moves)
        {
            tenon_body_move_event* data;
            UIntPtr n;
            TenonException.Check(Native.tenon_world_get_body_move_events(Id, &data, &n));
            return CopyView(data, (int)n.ToUInt64(), moves, sizeof(tenon_body_move_event));
        }

        public tenon_body_move_event[] BodyMoveEvents()
        {
            return Grow<tenon_body_move_event>(GetBodyMoveEvents);
        }

        /// <summary>The pairs of shapes that began or stopped touching in the last step (an event per pair of shapes: a body with several shapes has one for each that touches); returns their number.</summary>
        public int GetShapeContactEvents(tenon_shape_contact_event[] events)
        {
            tenon_shape_contact_event* data;
            UIntPtr n;
            TenonException.Check(Native.tenon_world_get_shape_contact_events(Id, &data, &n));
            return CopyView(data, (int)n.ToUInt64(), events, sizeof(tenon_shape_contact_event));
        }

        public tenon_shape_contact_event[] ShapeContactEvents()
        {
            return Grow<tenon_shape_contact_event>(GetShapeContactEvents);
        }

        /// <summary>The shapes that began or stopped overlapping a sensor in the last step (ends first); returns their number.</summary>
        public int GetSensorEvents(tenon_sensor_event[] events)
        {
            tenon_sensor_event* data;
            UIntPtr n;
            TenonException.Check(Native.tenon_world_get_sensor_events(Id, &data, &n));
            return CopyView(data, (int)n.ToUInt64(), events, sizeof(tenon_sensor_event));
        }

        public tenon_sensor_event[] SensorEvents()
        {
            return Grow<tenon_sensor_event>(GetSensorEvents);
        }

        /// <summary>The joints that broke in the last step, destroyed since (Joint.SetBreakForce); returns their number.</summary>
        public int GetJointBreaks(tenon_joint_break[] breaks)
        {
            tenon_joint_break* data;
            UIntPtr n;
            TenonException.Check(Native.tenon_world_get_joint_breaks(Id, &data, &n));
            return CopyView(data, (int)n.ToUInt64(), breaks, sizeof(tenon_joint_break));
        }

        public tenon_joint_break[] JointBreaks()
        {
            return Grow<tenon_joint_break>(GetJointBreaks);
        }

        /// <summary>
        /// Registers a contact found by the caller's own collision system, for the next step. Start
        /// the def from Native.tenon_contact_def_default().
        /// </summary>
        public void RegisterContact(tenon_contact_def def)
        {
            TenonException.Check(Native.tenon_world_register_contact(Id, &def));
        }

        /// <summary>
        /// The first shape a ray meets (<paramref name="direction"/> any nonzero length, distances
        /// along it normalized). False if it meets none within <paramref name="maxDistance"/>.
        /// </summary>
        public bool CastRay(tenon_vec3 origin, tenon_vec3 direction, double maxDistance, out tenon_ray_hit hit,
                            uint group = 1, uint mask = uint.MaxValue)
        {
            tenon_ray_hit h;
            TenonException.Check(Native.tenon_world_cast_ray(Id, origin, direction, maxDistance, group, mask, &h));
            hit = h;
            return h.hit != 0;
        }

        /// <summary>Every shape a ray meets, nearest first; returns their number.</summary>
        public int CastRayAll(tenon_vec3 origin, tenon_vec3 direction, double maxDistance, tenon_ray_hit[] hits,
                              uint group = 1, uint mask = uint.MaxValue)
        {
            UIntPtr n;
            fixed (tenon_ray_hit* p = hits)
            {
                Copied(Native.tenon_world_cast_ray_all(Id, origin, direction, maxDistance, group, mask, p, Length(hits), &n));
            }
            return (int)n.ToUInt64();
        }

        /// <summary>The shapes whose bounding boxes meet the box [min, max]; returns their number.</summary>
        public int OverlapAabb(tenon_vec3 min, tenon_vec3 max, tenon_shape_id[] shapes,
                               uint group = 1, uint mask = uint.MaxValue)
        {
            UIntPtr n;
            fixed (tenon_shape_id* p = shapes)
            {
                Copied(Native.tenon_world_overlap_aabb(Id, min, max, group, mask, p, Length(shapes), &n));
            }
            return (int)n.ToUInt64();
        }

        /// <summary>
        /// The shapes a solid shape (a def of a sphere, box, capsule, cylinder or convex hull; its
        /// group and mask filter) overlaps at a pose; returns their number.
        /// </summary>
        public int OverlapShape(ShapeDef shape, tenon_vec3 position, tenon_quat rotation, tenon_shape_id[] shapes)
        {
            UIntPtr n;
            fixed (tenon_vec3* pts = shape.Points)
            fixed (uint* idx = shape.Indices)
            fixed (double* hs = shape.Heights)
            fixed (tenon_shape_id* p = shapes)
            {
                var def = shape.Raw(pts, idx, hs);
                Copied(Native.tenon_world_overlap_shape(Id, &def, position, rotation, p, Length(shapes), &n));
            }
            return (int)n.ToUInt64();
        }

        /// <summary>
        /// How far a solid shape can move from a pose along <paramref name="direction"/> before it
        /// touches a shape. False if it touches none within <paramref name="maxDistance"/>.
        /// </summary>
        public bool CastShape(ShapeDef shape, tenon_vec3 position, tenon_quat rotation, tenon_vec3 direction,
                              double maxDistance, out tenon_shape_cast_hit hit)
        {
            tenon_shape_cast_hit h;
            fixed (tenon_vec3* pts = shape.Points)
            fixed (uint* idx = shape.Indices)
            fixed (double* hs = shape.Heights)
            {
                var def = shape.Raw(pts, idx, hs);
                TenonException.Check(Native.tenon_world_cast_shape(Id, &def, position, rotation, direction, maxDistance, &h));
            }
            hit = h;
            return h.hit != 0;
        }

        // The copy-out convention: BUFFER_TOO_SMALL is not an error here (the count says so).
        internal static void Copied(tenon_result r)
        {
            if (r != tenon_result.BufferTooSmall)
            {
                TenonException.Check(r);
            }
        }

        internal static UIntPtr Length(Array a)
        {
            return (UIntPtr)(a == null ? 0 : a.Length);
        }

        // (three arrays, not `params`: the call is made every frame and must not allocate)
        static int Capacity(Array a, Array b, Array c)
        {
            int cap = -1;
            if (!SameLength(a, ref cap) || !SameLength(b, ref cap) || !SameLength(c, ref cap))
            {
                throw new ArgumentException("the arrays given must be equally long");
            }
            return cap < 0 ? 0 : cap;
        }

        static bool SameLength(Array a, ref int cap)
        {
            if (a == null)
            {
                return true;
            }
            if (cap >= 0 && a.Length != cap)
            {
                return false;
            }
            cap = a.Length;
            return true;
        }

        // Copies a world-owned view of `n` items of `size` bytes into `into` if they fit. (Bytes,
        // not a generic copy: Mono's compiler has no `unmanaged` constraint.)
        static int CopyView(void* data, int n, Array into, int size)
        {
            if (into != null && n <= into.Length && n > 0)
            {
                GCHandle pin = GCHandle.Alloc(into, GCHandleType.Pinned);
                try
                {
                    Buffer.MemoryCopy(data, (void*)pin.AddrOfPinnedObject(), (long)into.Length * size, (long)n * size);
                }
                finally
                {
                    pin.Free();
                }
            }
            return n;
        }

        internal static T[] Grow<T>(Func<T[], int> fill)
        {
            var buf = new T[0];
            while (true)
            {
                int n = fill(buf);
                if (n <= buf.Length)
                {
                    if (n == buf.Length)
                    {
                        return buf;
                    }
                    var exact = new T[n];
                    Array.Copy(buf, exact, n);
                    return exact;
                }
                buf = new T[n];
            }
        }
    }

    /// <summary>A rigid body: a value wrapping its C id. Calls on a destroyed body throw (InvalidHandle).</summary>
    public unsafe struct Body : IEquatable<Body>
    {
        public readonly tenon_body_id Id;

        public Body(tenon_body_id id)
        {
            Id = id;
        }

        /// <summary>The world itself, as the first body of a joint.</summary>
        public static readonly Body None = new Body();

        public bool IsNull { get { return Id.IsNull; } }

        public void Destroy()
        {
            TenonException.Check(Native.tenon_body_destroy(Id));
        }

        public tenon_body_kind Kind
        {
            get { uint v; TenonException.Check(Native.tenon_body_get_kind(Id, &v)); return (tenon_body_kind)v; }
            set { TenonException.Check(Native.tenon_body_set_kind(Id, (uint)value)); }
        }

        public tenon_mass_properties MassProperties
        {
            get { tenon_mass_properties v; TenonException.Check(Native.tenon_body_get_mass_properties(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_body_set_mass_properties(Id, value)); }
        }

        /// <summary>Sets the mass properties from the shapes' densities (and moves the body's origin to their centre of mass).</summary>
        public tenon_mass_properties SetMassFromShapes()
        {
            tenon_mass_properties v;
            TenonException.Check(Native.tenon_body_set_mass_from_shapes(Id, &v));
            return v;
        }

        /// <summary>Position of the centre of mass (m, world).</summary>
        public tenon_vec3 Position
        {
            get { tenon_vec3 v; TenonException.Check(Native.tenon_body_get_position(Id, &v)); return v; }
        }

        /// <summary>Rotation, local to world.</summary>
        public tenon_quat Rotation
        {
            get { tenon_quat v; TenonException.Check(Native.tenon_body_get_rotation(Id, &v)); return v; }
        }

        /// <summary>Moves the body at once (a teleport).</summary>
        public void SetPose(tenon_vec3 position, tenon_quat rotation)
        {
            TenonException.Check(Native.tenon_body_set_pose(Id, position, rotation));
        }

        /// <summary>A kinematic body's pose at the end of the next step of length dt: it moves there through the step.</summary>
        public void SetTargetPose(tenon_vec3 position, tenon_quat rotation, double dt)
        {
            TenonException.Check(Native.tenon_body_set_target_pose(Id, position, rotation, dt));
        }

        public tenon_vec3 LinearVelocity
        {
            get { tenon_vec3 v; TenonException.Check(Native.tenon_body_get_linear_velocity(Id, &v)); return v; }
        }

        public tenon_vec3 AngularVelocity
        {
            get { tenon_vec3 v; TenonException.Check(Native.tenon_body_get_angular_velocity(Id, &v)); return v; }
        }

        public void SetVelocity(tenon_vec3 linear, tenon_vec3 angular)
        {
            TenonException.Check(Native.tenon_body_set_velocity(Id, linear, angular));
        }

        public double GravityScale
        {
            get { double v; TenonException.Check(Native.tenon_body_get_gravity_scale(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_body_set_gravity_scale(Id, value)); }
        }

        public double LinearDamping
        {
            get { double v; TenonException.Check(Native.tenon_body_get_linear_damping(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_body_set_linear_damping(Id, value)); }
        }

        public double AngularDamping
        {
            get { double v; TenonException.Check(Native.tenon_body_get_angular_damping(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_body_set_angular_damping(Id, value)); }
        }

        /// <summary>Parts the body is split into (0: automatic).</summary>
        public uint SplitParts
        {
            get { uint v; TenonException.Check(Native.tenon_body_get_split_parts(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_body_set_split_parts(Id, value)); }
        }

        public ulong UserData
        {
            get { ulong v; TenonException.Check(Native.tenon_body_get_user_data(Id, &v)); return v; }
        }

        public bool Awake
        {
            get { uint v; TenonException.Check(Native.tenon_body_is_awake(Id, &v)); return v != 0; }
            set { TenonException.Check(Native.tenon_body_set_awake(Id, value ? 1u : 0u)); }
        }

        public bool SleepAllowed
        {
            get { uint v; TenonException.Check(Native.tenon_body_get_sleep_allowed(Id, &v)); return v != 0; }
            set { TenonException.Check(Native.tenon_body_set_sleep_allowed(Id, value ? 1u : 0u)); }
        }

        /// <summary>A force (N) at a point (m, world) for the next step.</summary>
        public void ApplyForce(tenon_vec3 force, tenon_vec3 worldPoint)
        {
            TenonException.Check(Native.tenon_body_apply_force(Id, force, worldPoint));
        }

        public void ApplyTorque(tenon_vec3 torque)
        {
            TenonException.Check(Native.tenon_body_apply_torque(Id, torque));
        }

        public void ApplyImpulse(tenon_vec3 impulse, tenon_vec3 worldPoint)
        {
            TenonException.Check(Native.tenon_body_apply_impulse(Id, impulse, worldPoint));
        }

        public void ApplyAngularImpulse(tenon_vec3 impulse)
        {
            TenonException.Check(Native.tenon_body_apply_angular_impulse(Id, impulse));
        }

        /// <summary>Adds a shape (its pose relative to the body's origin is in the def).</summary>
        public Shape AddShape(ShapeDef shape)
        {
            tenon_shape_id id;
            fixed (tenon_vec3* pts = shape.Points)
            fixed (uint* idx = shape.Indices)
            fixed (double* hs = shape.Heights)
            {
                var def = shape.Raw(pts, idx, hs);
                TenonException.Check(Native.tenon_shape_create(Id, &def, &id));
            }
            return new Shape(id);
        }

        /// <summary>The body's shapes (slot order); returns their number.</summary>
        public int GetShapes(tenon_shape_id[] ids)
        {
            UIntPtr n;
            fixed (tenon_shape_id* p = ids)
            {
                World.Copied(Native.tenon_body_get_shapes(Id, p, World.Length(ids), &n));
            }
            return (int)n.ToUInt64();
        }

        public tenon_shape_id[] Shapes()
        {
            var self = this;
            return World.Grow<tenon_shape_id>(b => self.GetShapes(b));
        }

        /// <summary>The joints on the body (creation order); returns their number.</summary>
        public int GetJoints(tenon_joint_id[] ids)
        {
            UIntPtr n;
            fixed (tenon_joint_id* p = ids)
            {
                World.Copied(Native.tenon_body_get_joints(Id, p, World.Length(ids), &n));
            }
            return (int)n.ToUInt64();
        }

        public tenon_joint_id[] Joints()
        {
            var self = this;
            return World.Grow<tenon_joint_id>(b => self.GetJoints(b));
        }

        public bool Equals(Body o) { return Id.Equals(o.Id); }
        public override bool Equals(object o) { return o is Body && Equals((Body)o); }
        public override int GetHashCode() { return Id.GetHashCode(); }
    }

    /// <summary>A joint: a value wrapping its C id.</summary>
    public unsafe struct Joint : IEquatable<Joint>
    {
        public readonly tenon_joint_id Id;

        public Joint(tenon_joint_id id)
        {
            Id = id;
        }

        public void Destroy()
        {
            TenonException.Check(Native.tenon_joint_destroy(Id));
        }

        public tenon_joint_type Type
        {
            get { uint v; TenonException.Check(Native.tenon_joint_get_type(Id, &v)); return (tenon_joint_type)v; }
        }

        /// <summary>The two bodies (the first null for the world).</summary>
        public void GetBodies(out Body a, out Body b)
        {
            tenon_body_id ia, ib;
            TenonException.Check(Native.tenon_joint_get_bodies(Id, &ia, &ib));
            a = new Body(ia);
            b = new Body(ib);
        }

        public void GetFrames(out tenon_joint_frame a, out tenon_joint_frame b)
        {
            tenon_joint_frame fa, fb;
            TenonException.Check(Native.tenon_joint_get_frames(Id, &fa, &fb));
            a = fa;
            b = fb;
        }

        public ulong UserData
        {
            get { ulong v; TenonException.Check(Native.tenon_joint_get_user_data(Id, &v)); return v; }
        }

        /// <summary>A hinge's, slider's or cylindrical joint's motor, a ball joint's friction or servo (Native.tenon_joint_def_default() gives one turned off).</summary>
        public tenon_motor Motor
        {
            get { tenon_motor v; TenonException.Check(Native.tenon_joint_get_motor(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_joint_set_motor(Id, value)); }
        }

        /// <summary>A ball joint's servo target: frame B's rotation relative to frame A (an active ragdoll's pose).</summary>
        public tenon_quat MotorRotation
        {
            get { tenon_quat v; TenonException.Check(Native.tenon_joint_get_motor_rotation(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_joint_set_motor_rotation(Id, value)); }
        }

        public tenon_joint_limits Limits
        {
            get { tenon_joint_limits v; TenonException.Check(Native.tenon_joint_get_limits(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_joint_set_limits(Id, value)); }
        }

        /// <summary>A hinge's angle (rad), a slider's or cylindrical joint's position (m), a distance joint's length (m).</summary>
        public double Coordinate
        {
            get { double v; TenonException.Check(Native.tenon_joint_get_coordinate(Id, &v)); return v; }
        }

        /// <summary>The motor's impulse over the last step (N s or N m s).</summary>
        public double MotorImpulse
        {
            get { double v; TenonException.Check(Native.tenon_joint_get_motor_impulse(Id, &v)); return v; }
        }

        /// <summary>The joint's violation at the end of the last step, or at its creation (m or rad): within the world's EpsP after a converged step.</summary>
        public double Violation
        {
            get { double v; TenonException.Check(Native.tenon_joint_get_violation(Id, &v)); return v; }
        }

        /// <summary>
        /// Makes the joint break when its mean force (N) or torque about its anchor (N m) over a
        /// step exceeds these (Unity's breakForce and breakTorque; infinity: never). The world
        /// destroys it at the end of that step and lists it in World.GetJointBreaks.
        /// </summary>
        public void SetBreakForce(double force, double torque)
        {
            TenonException.Check(Native.tenon_joint_set_break_force(Id, force, torque));
        }

        public void GetBreakForce(out double force, out double torque)
        {
            double f, t;
            TenonException.Check(Native.tenon_joint_get_break_force(Id, &f, &t));
            force = f;
            torque = t;
        }

        /// <summary>The impulse the joint put on its second body over the last step (N s, N m s).</summary>
        public void GetReactionImpulse(out tenon_vec3 linear, out tenon_vec3 angular)
        {
            tenon_vec3 l, a;
            TenonException.Check(Native.tenon_joint_get_reaction_impulse(Id, &l, &a));
            linear = l;
            angular = a;
        }

        public bool Equals(Joint o) { return Id.Equals(o.Id); }
        public override bool Equals(object o) { return o is Joint && Equals((Joint)o); }
        public override int GetHashCode() { return Id.GetHashCode(); }
    }

    /// <summary>A collision shape on a body: a value wrapping its C id.</summary>
    public unsafe struct Shape : IEquatable<Shape>
    {
        public readonly tenon_shape_id Id;

        public Shape(tenon_shape_id id)
        {
            Id = id;
        }

        public void Destroy()
        {
            TenonException.Check(Native.tenon_shape_destroy(Id));
        }

        public Body Body
        {
            get { tenon_body_id v; TenonException.Check(Native.tenon_shape_get_body(Id, &v)); return new Body(v); }
        }

        public ulong UserData
        {
            get { ulong v; TenonException.Check(Native.tenon_shape_get_user_data(Id, &v)); return v; }
        }

        public tenon_material Material
        {
            get { tenon_material v; TenonException.Check(Native.tenon_shape_get_material(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_shape_set_material(Id, value)); }
        }

        /// <summary>The velocity of the shape's surface relative to its body, in the shape's frame (m/s): a conveyor
        /// belt, a tank's tread. Friction holds what touches the shape at that velocity instead of at rest.</summary>
        public tenon_vec3 SurfaceVelocity
        {
            get { tenon_vec3 v; TenonException.Check(Native.tenon_shape_get_surface_velocity(Id, &v)); return v; }
            set { TenonException.Check(Native.tenon_shape_set_surface_velocity(Id, value)); }
        }

        /// <summary>Sets the collision group and mask: two shapes collide when each one's group meets the other's mask.</summary>
        public void SetFilter(uint group, uint mask)
        {
            TenonException.Check(Native.tenon_shape_set_filter(Id, group, mask));
        }

        public void GetFilter(out uint group, out uint mask)
        {
            uint g, m;
            TenonException.Check(Native.tenon_shape_get_filter(Id, &g, &m));
            group = g;
            mask = m;
        }

        /// <summary>A sensor makes no contact and no query sees it; the world lists what overlaps it.</summary>
        public bool IsSensor
        {
            get { uint v; TenonException.Check(Native.tenon_shape_get_sensor(Id, &v)); return v != 0; }
            set { TenonException.Check(Native.tenon_shape_set_sensor(Id, value ? 1u : 0u)); }
        }

        /// <summary>The shapes overlapping this sensor at the end of the last step; returns their number.</summary>
        public int GetSensorOverlaps(tenon_shape_id[] ids)
        {
            UIntPtr n;
            fixed (tenon_shape_id* p = ids)
            {
                World.Copied(Native.tenon_shape_get_sensor_overlaps(Id, p, World.Length(ids), &n));
            }
            return (int)n.ToUInt64();
        }

        public tenon_shape_id[] SensorOverlaps()
        {
            var self = this;
            return World.Grow<tenon_shape_id>(b => self.GetSensorOverlaps(b));
        }

        public bool Equals(Shape o) { return Id.Equals(o.Id); }
        public override bool Equals(object o) { return o is Shape && Equals((Shape)o); }
        public override int GetHashCode() { return Id.GetHashCode(); }
    }

    /// <summary>
    /// A shape's description: the C def plus the arrays a hull, mesh or height field reads. The
    /// arrays are pinned only during the call that reads them (the library copies what it needs).
    /// </summary>
    public sealed class ShapeDef
    {
        /// <summary>The C def (Native.tenon_shape_def_default()): pose on the body, material, density, filter, user data.</summary>
        public tenon_shape_def Def = Native.tenon_shape_def_default();
        public tenon_vec3[] Points;
        public uint[] Indices;
        public double[] Heights;

        public static ShapeDef Sphere(double radius)
        {
            var s = new ShapeDef();
            s.Def.@type = (uint)tenon_shape_type.Sphere;
            s.Def.radius = radius;
            return s;
        }

        public static ShapeDef Box(tenon_vec3 halfExtents)
        {
            var s = new ShapeDef();
            s.Def.@type = (uint)tenon_shape_type.Box;
            s.Def.half_extents = halfExtents;
            return s;
        }

        /// <summary>A capsule along the local z axis.</summary>
        public static ShapeDef Capsule(double radius, double halfHeight)
        {
            var s = new ShapeDef();
            s.Def.@type = (uint)tenon_shape_type.Capsule;
            s.Def.radius = radius;
            s.Def.half_height = halfHeight;
            return s;
        }

        /// <summary>A cylinder along the local z axis.</summary>
        public static ShapeDef Cylinder(double radius, double halfHeight)
        {
            var s = new ShapeDef();
            s.Def.@type = (uint)tenon_shape_type.Cylinder;
            s.Def.radius = radius;
            s.Def.half_height = halfHeight;
            return s;
        }

        /// <summary>The convex hull of points (local frame).</summary>
        public static ShapeDef ConvexHull(tenon_vec3[] points)
        {
            var s = new ShapeDef();
            s.Def.@type = (uint)tenon_shape_type.ConvexHull;
            s.Points = points;
            return s;
        }

        /// <summary>A triangle mesh: points and three indices per triangle (no volume, so no mass).</summary>
        public static ShapeDef TriMesh(tenon_vec3[] points, uint[] indices)
        {
            var s = new ShapeDef();
            s.Def.@type = (uint)tenon_shape_type.TriMesh;
            s.Points = points;
            s.Indices = indices;
            return s;
        }

        /// <summary>
        /// A height field (static bodies): rows x cols heights, row-major (rows along local y,
        /// columns along local x), over a grid 2 halfExtents.x by 2 halfExtents.y metres centred at
        /// the origin, each height multiplied by halfExtents.z.
        /// </summary>
        public static ShapeDef HeightField(double[] heights, uint rows, uint cols, tenon_vec3 halfExtents)
        {
            var s = new ShapeDef();
            s.Def.@type = (uint)tenon_shape_type.HeightField;
            s.Heights = heights;
            s.Def.rows = rows;
            s.Def.cols = cols;
            s.Def.half_extents = halfExtents;
            return s;
        }

        /// <summary>The half-space below the plane through the shape's origin with outward <paramref name="normal"/> (grounds and walls of static bodies).</summary>
        public static ShapeDef HalfSpace(tenon_vec3 normal)
        {
            var s = new ShapeDef();
            s.Def.@type = (uint)tenon_shape_type.HalfSpace;
            s.Def.normal = normal;
            return s;
        }

        /// <summary>The def with the array pointers set (the arrays pinned by the caller).</summary>
        internal unsafe tenon_shape_def Raw(tenon_vec3* points, uint* indices, double* heights)
        {
            var d = Def;
            // the library reads rows * cols heights
            long needed = d.@type == (uint)tenon_shape_type.HeightField ? (long)d.rows * d.cols : 0;
            if ((Heights == null ? 0 : Heights.LongLength) < needed)
            {
                throw new ArgumentException("a height field of " + d.rows + " x " + d.cols + " needs as many heights");
            }
            d.points = points;
            d.point_count = World.Length(Points);
            d.indices = indices;
            d.index_count = World.Length(Indices);
            d.heights = heights;
            return d;
        }
    }
}
