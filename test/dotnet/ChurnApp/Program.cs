// Heapscope test target for GC pauses: prints "READY <pid>", then churns until stdin closes.
//
// A live set of 200,000 byte arrays (64-1,024 bytes, ~110 MB) of which one is replaced for every
// 8 short-lived allocations, so survivors keep flowing into gen2 and the runtime itself starts
// background gen-2 GCs (workstation, concurrent: see the .csproj) several times a second. Such a
// GC is triggered by an allocation, so the runtime first runs an ephemeral GC in the same
// suspension; allocation goes on while it marks, so foreground GCs run inside it. A background GC
// is forced (GC.Collect(2, Forced, blocking: false)) if none ran for a second.
namespace HeapscopeTest;

public static class Program
{
    public static int Main(string[] args)
    {
        const int Live = 200_000;
        var live = new object[Live];
        var rng = new Random(13);
        for (int i = 0; i < Live; i++) live[i] = new byte[rng.Next(64, 1024)];
        Console.WriteLine($"READY {Environment.ProcessId}");
        Console.Out.Flush();
        var stdin = Task.Run(() => Console.In.ReadToEnd());
        var clock = System.Diagnostics.Stopwatch.StartNew();
        long lastGen2 = GC.CollectionCount(2), lastGen2At = 0;
        long sink = 0;
        while (!stdin.IsCompleted)
        {
            for (int i = 0; i < 20_000; i++)
            {
                var garbage = new byte[rng.Next(16, 512)];
                sink += garbage.Length;
                if ((i & 7) == 0) live[rng.Next(Live)] = new byte[rng.Next(64, 1024)]; // old objects die, new ones survive into gen2
            }
            if (GC.CollectionCount(2) != lastGen2)
            {
                lastGen2 = GC.CollectionCount(2);
                lastGen2At = clock.ElapsedMilliseconds;
            }
            else if (clock.ElapsedMilliseconds - lastGen2At > 1000)
            {
                GC.Collect(2, GCCollectionMode.Forced, blocking: false); // a background GC at least every second
                lastGen2At = clock.ElapsedMilliseconds;
            }
            Thread.Sleep(1);
        }
        GC.KeepAlive(live);
        return sink > 0 ? 0 : 1;
    }
}
