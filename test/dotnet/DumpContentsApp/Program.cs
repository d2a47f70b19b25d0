// Heapscope test target for full process dumps: objects whose field values the dump queries
// (heapscope object / threads / runtime) must read back exactly. Prints "READY <pid>", then waits
// until stdin closes. Writes the runtime version to the file named by --info FILE (the test
// compares it with `heapscope runtime`).
//
//   Holder.Sample        a Sample with known fields (int, enum, string, bool, double, long, char,
//                        a reference to an Owner, an int[] of 8 known elements, a null reference,
//                        an embedded struct Pair {X = 3, Y = -4}, an Owner[] of an Owner and a null,
//                        a string and a char holding lone surrogates)
//   Holder.Variety       a Variety: a field of every primitive width, enums of several underlying types
//                        (a flags combination, an undefined value), decimal, nullables, nested structs,
//                        runtime structs, boxed values, generic instances and arrays of several kinds,
//                        and null fields whose declared types the runtime never loads
//   Holder.Timer         a System.Threading.Timer whose callback targets a disposed Clock (also a
//                        local of Main, like args: Main's frame roots both while the program waits)
//   thread "parked"      background thread in ParkedWorker.HoldLocals holding a ParkedLocal (Marker 1234)
//   thread "catcher"     foreground thread waiting inside a catch block of an InvalidOperationException
//   thread OddName       background thread in ParkedWorker.WaitNamed, named with a quote, a backslash,
//                        a newline and a tab (the stack-root label must escape them, the name stays raw)
using System.Runtime.CompilerServices;

namespace HeapscopeTest;

public enum Mood { Calm = 1, Busy = 2, Angry = 7 }

public struct Pair
{
    public int X;
    public long Y;
}

public sealed class Owner
{
    public string Name = "owner-1";
}

public sealed class Sample
{
    public int Count = 42;
    public Mood Mood = Mood.Angry;
    public string Label = "hello dump";
    public bool Enabled = true;
    public double Ratio = 2.5;
    public long Big = -9_000_000_000;
    public char Letter = 'Q';
    public Owner Owner = new();
    public int[] Numbers = [3, 1, 4, 1, 5, 9, 2, 6];
    public object? Nothing;
    public Pair Where = new() { X = 3, Y = -4 };
    public Owner?[] Owners = [new Owner { Name = "owner-2" }, null];
    // UTF-16 that is not valid Unicode (a lone surrogate), as strings read from binary data can hold
    public string Odd = "a\uD800b";
    public char Half = '\uDC00';
}

// For the SOS peer of field values (test/integration/dump-object-peer.test.ts): one field of each kind.
public enum Small : byte { Zero = 0, Top = 200 }
public enum Huge : ulong { None = 0, Top = 0xFFFF_FFFF_FFFF_FFF0 }
public enum Tiny : sbyte { Minus = -3 }
[Flags] public enum Bits { A = 1, B = 2, C = 4 }

public struct Outer
{
    public Pair Inner;
    public Mood Mood;
    public string Text;
    public decimal Money;
}

public sealed class Box<T>
{
    public T Value = default!;
    public int Version = 9;
}

public sealed class Variety
{
    public byte U8 = 250;
    public sbyte I8 = -120;
    public short I16 = -32000;
    public ushort U16 = 65000;
    public uint U32 = 4_000_000_000;
    public ulong U64 = 18_000_000_000_000_000_000;
    public long I64Min = long.MinValue;
    public float Single = 1.25f;
    public float Third = 1f / 3;
    public double Negative = -0.125;
    public double Tiny = 5e-324;
    public double NotANumber = double.NaN;
    public nint Native = 0x1234;
    public nuint NativeU = 0xfedc;
    public bool No;
    public char Space = ' ';
    public Small Small = Small.Top;
    public Huge Huge = Huge.Top;
    public Tiny Tiny8 = HeapscopeTest.Tiny.Minus;
    public Bits Bits = Bits.A | Bits.C;
    public Mood Undefined = (Mood)5;
    public decimal Money = -1234.5678m;
    public int? Some = 5;
    public int? None;
    public Pair? SomePair = new Pair { X = -1, Y = long.MaxValue };
    public Outer Outer = new() { Inner = new Pair { X = 11, Y = 12 }, Mood = Mood.Busy, Text = "inner text", Money = 0.01m };
    public DateTime When = new(2024, 2, 29, 13, 14, 15, DateTimeKind.Utc);
    public TimeSpan Span = TimeSpan.FromMilliseconds(1500);
    public Guid Id = new("0f8fad5b-d9cb-469f-a165-70867728950e");
    public KeyValuePair<string, int> Entry = new("key", 77);
    public object Boxed = 17;
    public object BoxedPair = new Pair { X = 5, Y = 6 };
    public string Empty = "";
    public Box<int> IntBox = new() { Value = 31 };
    public Box<string> TextBox = new() { Value = "boxed" };
    public Box<Pair> PairBox = new() { Value = new Pair { X = 7, Y = 8 } };
    public Pair[] Pairs = [new Pair { X = 1, Y = 2 }, new Pair { X = 3, Y = 4 }];
    public string?[] Words = ["one", null, "three"];
    public Mood[] Moods = [Mood.Calm, Mood.Angry];
    public double[] Doubles = [0.5, -2];
    public byte[] Bytes = [1, 2, 255];
    public int[,] Grid = { { 1, 2 }, { 3, 4 } };
    // Declared types the runtime never loads (no instance is ever made): named from metadata.
    public NeverMade? Unloaded;
    public NeverMade[]? UnloadedArray;
    public Dictionary<int, NeverMade>? UnloadedGeneric;
}

public sealed class NeverMade
{
    public int Unused;
}

public sealed class Clock : IDisposable
{
    public bool Disposed;
    public int Ticks;
    public void Tick(object? state) => Ticks++;
    public void Dispose() => Disposed = true;
}

public sealed class ParkedLocal
{
    public int Marker = 1234;
}

public static class Holder
{
    public static readonly Sample Sample = new();
    public static Timer? Timer;
    public static readonly Variety Variety = new();
}

public static class ParkedWorker
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void HoldLocals(ManualResetEventSlim parked, ManualResetEvent release)
    {
        var local = new ParkedLocal();
        parked.Set();
        release.WaitOne();
        GC.KeepAlive(local);
    }

    /// <summary>The name of the thread that waits in WaitNamed: characters a label must escape.</summary>
    public const string OddName = "say \"hi\" \\ then\nbye\t!";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WaitNamed(ManualResetEventSlim parked, ManualResetEvent release)
    {
        parked.Set();
        release.WaitOne();
        GC.KeepAlive(release);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WaitInCatch(ManualResetEventSlim parked, ManualResetEvent release)
    {
        try
        {
            throw new InvalidOperationException("parked in a catch block");
        }
        catch (InvalidOperationException)
        {
            parked.Set();
            release.WaitOne();
        }
    }
}

public static class Program
{
    public static int Main(string[] args)
    {
        int info = Array.IndexOf(args, "--info");
        if (info >= 0 && info + 1 < args.Length) File.WriteAllText(args[info + 1], $"RUNTIME {Environment.Version}\n");

        var clock = new Clock();
        var timer = new Timer(clock.Tick, null, TimeSpan.FromHours(1), TimeSpan.FromHours(1));
        Holder.Timer = timer;
        clock.Dispose();
        GC.KeepAlive(Holder.Sample);
        GC.KeepAlive(Holder.Variety);

        // A kernel event, not a ManualResetEventSlim: a slim wait spins before it blocks, and a dump
        // taken during the spin would catch the thread in SpinWait frames instead of the wait.
        using var release = new ManualResetEvent(false);
        using var parked = new ManualResetEventSlim();
        using var caught = new ManualResetEventSlim();
        var worker = new Thread(() => ParkedWorker.HoldLocals(parked, release)) { Name = "parked", IsBackground = true };
        worker.Start();
        var catcher = new Thread(() => ParkedWorker.WaitInCatch(caught, release)) { Name = "catcher", IsBackground = false };
        catcher.Start();
        using var named = new ManualResetEventSlim();
        var odd = new Thread(() => ParkedWorker.WaitNamed(named, release)) { Name = ParkedWorker.OddName, IsBackground = true };
        odd.Start();
        parked.Wait();
        caught.Wait();
        named.Wait();
        // READY only once the threads block in WaitOne (nothing between Set and WaitOne sleeps).
        while ((worker.ThreadState & ThreadState.WaitSleepJoin) == 0 || (catcher.ThreadState & ThreadState.WaitSleepJoin) == 0
            || (odd.ThreadState & ThreadState.WaitSleepJoin) == 0) Thread.Sleep(5);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine($"READY {Environment.ProcessId}");
        Console.Out.Flush();
        Console.In.ReadToEnd();
        release.Set();
        worker.Join();
        catcher.Join();
        odd.Join();
        // Main's frame roots the Timer and args until here (the tests start from those roots).
        GC.KeepAlive(timer);
        GC.KeepAlive(args);
        return 0;
    }
}
