// Heapscope test target for weak and dependent handles: builds a known object graph, prints
// "READY <pid>", then waits until stdin closes.
//
//   Holders.Registry (List<Tracked>)          --> 100 Tracked, each with a byte[500]
//   Holders.TrackedRefs (WeakReference<T>)    ~~> the same 100 Tracked, weakly: they must stay
//                                                 retained by the Registry's array, not the roots
//   Holders.WeakOnlyRefs (WeakReference)      ~~> 50 WeakOnly nobody else holds: collected (0 left)
//   Holders.Table (ConditionalWeakTable)      20 CwtKey -> CwtValue (each with a byte[200]);
//   Holders.LiveKeys (List<CwtKey>)           --> 10 of the keys: their 10 values stay alive,
//                                                 retained by their keys; the other 10 pairs die
//   3 Clock objects, disposed and dropped by the program, whose Timer was never disposed: the
//   runtime's TimerQueue --> TimerQueueTimer --> TimerCallback --> Clock keeps each alive
//   ("the disposed Clock still ticking" leak), with its byte[100] state, Timer and TimerHolder.
using System.Runtime.CompilerServices;

namespace HeapscopeRetention;

public sealed class Tracked
{
    public readonly int Id;
    public readonly byte[] Payload = new byte[500];
    public Tracked(int id) => Id = id;
}

public sealed class WeakOnly
{
    public readonly byte[] Payload = new byte[300];
}

public sealed class CwtKey
{
    public readonly int Id;
    public CwtKey(int id) => Id = id;
}

public sealed class CwtValue
{
    public readonly byte[] Payload = new byte[200];
}

public sealed class Clock : IDisposable
{
    private readonly Timer _timer;
    private readonly byte[] _state = new byte[100];
    private bool _disposed;
    public int Ticks;

    public Clock() => _timer = new Timer(Tick, null, TimeSpan.FromHours(1), TimeSpan.FromHours(1));

    private void Tick(object? _) { if (!_disposed) Ticks++; _state[0]++; }

    // The bug under test: the timer is not disposed, so its callback keeps this Clock alive.
    public void Dispose() => _disposed = true;
}

public static class Holders
{
    public static readonly List<Tracked> Registry = new();
    public static readonly List<WeakReference<Tracked>> TrackedRefs = new();
    public static readonly List<WeakReference> WeakOnlyRefs = new();
    public static readonly ConditionalWeakTable<CwtKey, CwtValue> Table = new();
    public static readonly List<CwtKey> LiveKeys = new();
}

public static class Program
{
    public const int TrackedCount = 100;
    public const int WeakOnlyCount = 50;
    public const int CwtPairs = 20;
    public const int Clocks = 3;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Build()
    {
        for (int i = 0; i < TrackedCount; i++)
        {
            var t = new Tracked(i);
            Holders.Registry.Add(t);
            Holders.TrackedRefs.Add(new WeakReference<Tracked>(t));
        }
        for (int i = 0; i < WeakOnlyCount; i++) Holders.WeakOnlyRefs.Add(new WeakReference(new WeakOnly()));
        for (int i = 0; i < CwtPairs; i++)
        {
            var key = new CwtKey(i);
            Holders.Table.Add(key, new CwtValue());
            if (i % 2 == 0) Holders.LiveKeys.Add(key);
        }
        for (int i = 0; i < Clocks; i++)
        {
            var clock = new Clock();
            clock.Dispose();
        }
    }

    public static int Main(string[] args)
    {
        Build();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine($"READY {Environment.ProcessId}");
        Console.Out.Flush();
        Console.In.ReadToEnd();
        GC.KeepAlive(Holders.Table);
        return 0;
    }
}
