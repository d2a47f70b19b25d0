// Heapscope test target for the Sparse arrays, Empty arrays and Empty collections inspections:
// keeps known arrays and collections of its own types alive (so nothing of the runtime's mixes in),
// prints "READY <pid>", then waits until stdin closes. Sizes on 64-bit:
//
//   1,000 × new Item[100], 3 elements set          (824 bytes each: 24 + 100 × 8)    sparse
//     100 × new Pair[64], 10 elements set          (1,048 bytes each: 24 + 64 × 16)  sparse
//      10 × new Item[8, 8], 3 elements set         (552 bytes each: 24 + 2 × 2 × 4 bounds + 64 × 8) sparse
//     500 × new Marker[0]                          (24 bytes each)                    empty
//     200 × new List<Item>(16), never added to     (32 bytes + an Item[16] of 152)    empty, sparse backing
//      25 × new Dictionary<int, Item>()            (no backing arrays)                empty
//      25 × new Dictionary<int, Item>(3)           (backing int[3] of 36 + Entry[3] of 96) empty
//   one Item, the value of every set element (held by a static, so no array retains it)
using System.Runtime.CompilerServices;

namespace HeapscopeTest;

public sealed class Item
{
    public int Value;
}

public sealed class Marker
{
}

public struct Pair
{
    public long A;
    public long B;
}

public static class Kept
{
    public static readonly Item Shared = new() { Value = 1 };
    public static Item[][] Sparse = [];
    public static Pair[][] SparsePairs = [];
    public static Item[][,] SparseGrids = [];
    public static Marker[][] Empty = [];
    public static List<Item>[] Lists = [];
    public static Dictionary<int, Item>[] Dictionaries = [];
}

public static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Make()
    {
        Kept.Sparse = new Item[1000][];
        for (int i = 0; i < Kept.Sparse.Length; i++)
        {
            var a = new Item[100];
            a[0] = a[50] = a[99] = Kept.Shared;
            Kept.Sparse[i] = a;
        }
        Kept.SparsePairs = new Pair[100][];
        for (int i = 0; i < Kept.SparsePairs.Length; i++)
        {
            var a = new Pair[64];
            for (int k = 0; k < 10; k++) a[k * 6] = new Pair { A = k + 1, B = 0 };
            Kept.SparsePairs[i] = a;
        }
        Kept.SparseGrids = new Item[10][,];
        for (int i = 0; i < Kept.SparseGrids.Length; i++)
        {
            var a = new Item[8, 8];
            a[0, 0] = a[0, 2] = a[1, 1] = Kept.Shared; // near the start: a wrong data offset would count the bounds
            Kept.SparseGrids[i] = a;
        }
        Kept.Empty = new Marker[500][];
#pragma warning disable CA1825 // the point: separate empty arrays
        for (int i = 0; i < Kept.Empty.Length; i++) Kept.Empty[i] = new Marker[0];
#pragma warning restore CA1825
        Kept.Lists = new List<Item>[200];
        for (int i = 0; i < Kept.Lists.Length; i++) Kept.Lists[i] = new List<Item>(16);
        Kept.Dictionaries = new Dictionary<int, Item>[50];
        for (int i = 0; i < Kept.Dictionaries.Length; i++) Kept.Dictionaries[i] = i < 25 ? new Dictionary<int, Item>() : new Dictionary<int, Item>(3);
    }

    public static int Main()
    {
        Make();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine($"READY {Environment.ProcessId}");
        Console.Out.Flush();
        Console.In.ReadToEnd();
        GC.KeepAlive(Kept.Sparse);
        return 0;
    }
}
