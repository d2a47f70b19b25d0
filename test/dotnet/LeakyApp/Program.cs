// Heapscope test target: keeps a known object graph alive, prints "READY <pid>", then waits.
//
//   static AppEvents.Bus (a MessageBus) --Changed event--> multicast delegate
//     --> 1,000 LeakyPage.OnChanged handlers --> each LeakyPage holds a 1,024-byte payload
//
// so exactly 1,000 LeakyPage instances are reachable only through the static event, the classic
// "page subscribed to a long-lived event and was never unsubscribed" leak. It also keeps
// 5 LargeBlob objects with 100,000-byte arrays (LOH). Options: --churn allocates short-lived
// garbage continuously (a GC-busy app for timeline tests); --objects N keeps N extra objects.
using System.Runtime.CompilerServices;

namespace HeapscopeTest;

public sealed class MessageBus
{
    public event EventHandler? Changed;
    public void Raise() => Changed?.Invoke(this, EventArgs.Empty);
}

public static class AppEvents
{
    public static readonly MessageBus Bus = new();
    public static readonly List<LargeBlob> Blobs = new();
    /** Optional bulk (--objects N): N small objects, to make heap walks take measurable time. */
    public static readonly List<object> Bulk = new();
}

public sealed class LeakyPage
{
    public readonly int Id;
    public readonly byte[] Payload = new byte[1024];
    public int Changes;
    public LeakyPage(int id) { Id = id; AppEvents.Bus.Changed += OnChanged; }
    private void OnChanged(object? sender, EventArgs e) => Changes++;
}

public sealed class LargeBlob
{
    public readonly byte[] Data = new byte[100_000];
}

public static class Program
{
    public const int LeakyPages = 1000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void CreatePages()
    {
        for (int i = 0; i < LeakyPages; i++) _ = new LeakyPage(i);
    }

    public static int Main(string[] args)
    {
        bool churn = args.Contains("--churn");
        int bulk = Array.IndexOf(args, "--objects") is int i0 && i0 >= 0 && i0 + 1 < args.Length ? int.Parse(args[i0 + 1]) : 0;
        CreatePages();
        for (int i = 0; i < bulk; i++) AppEvents.Bulk.Add(new object());
        for (int i = 0; i < 5; i++) AppEvents.Blobs.Add(new LargeBlob());
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine($"READY {Environment.ProcessId}");
        Console.Out.Flush();
        // Wait until stdin closes (the test harness ends us), churning garbage if asked so GCs happen.
        var stdin = Task.Run(() => Console.In.ReadToEnd());
        var rng = new Random(1);
        var keep = new List<object>();
        while (!stdin.IsCompleted)
        {
            if (churn)
            {
                for (int i = 0; i < 2000; i++) keep.Add(new byte[rng.Next(16, 4096)]);
                if (keep.Count > 20_000) keep.RemoveRange(0, 10_000);
                Thread.Sleep(5);
            }
            else Thread.Sleep(50);
        }
        AppEvents.Bus.Raise();
        return 0;
    }
}
