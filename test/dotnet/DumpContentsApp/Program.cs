// Heapscope test target for full process dumps: objects whose field values the dump queries
// (heapscope object / threads / runtime) must read back exactly. Prints "READY <pid>", then waits
// until stdin closes. Writes the runtime version to the file named by --info FILE (the test
// compares it with `heapscope runtime`).
//
//   Holder.Sample        a Sample with known fields (int, enum, string, bool, double, long, char,
//                        a reference to an Owner, an int[] of 8 known elements, a null reference,
//                        an embedded struct Pair {X = 3, Y = -4}, an Owner[] of an Owner and a null,
//                        a string and a char holding lone surrogates)
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
