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
//
// The other BCL collections (CollectionsKept): of each kind 20 empty ones (some with storage
// allocated, see MakeCollections) and 5 filled ones holding exactly 3 Elements, which must not be
// reported. Their element type is Element (or int keys), so the groups above stay as they are.
// The app waits by reading stdin char by char: ReadToEnd would keep an empty StringBuilder of its own.
using System.Collections.Concurrent;
using System.Collections.ObjectModel;
using System.Runtime.CompilerServices;
using System.Text;

namespace HeapscopeTest;

public sealed class Item
{
    public int Value;
}

public sealed class Marker
{
}

/// <summary>The element type of the other collections (CollectionsKept): sortable, for the sorted ones.</summary>
public sealed class Element : IComparable<Element>
{
    public int Id;

    public int CompareTo(Element? other) => Id.CompareTo(other?.Id ?? int.MinValue);
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

/// <summary>A collection type of the program's own: what matters is its base type.</summary>
public sealed class ElementList(int capacity) : List<Element>(capacity)
{
}

public static class CollectionsKept
{
    public const int Empty = 20, Filled = 5;
    public static readonly Element[] Three = [new() { Id = 1 }, new() { Id = 2 }, new() { Id = 3 }];
    public static ConcurrentDictionary<int, Element>[] ConcurrentDictionaries = [];
    public static ConcurrentQueue<Element>[] ConcurrentQueues = [];
    public static ConcurrentBag<Element>[] Bags = [];
    public static SortedDictionary<int, Element>[] SortedDictionaries = [];
    public static SortedList<int, Element>[] SortedLists = [];
    public static SortedSet<Element>[] SortedSets = [];
    public static LinkedList<Element>[] LinkedLists = [];
    public static Collection<Element>[] Collections = [];
    public static ObservableCollection<Element>[] Observables = [];
    public static StringBuilder[] Builders = [];
    public static PriorityQueue<Element, int>[] PriorityQueues = [];
    public static ElementList[] ElementLists = [];
    public static ConcurrentStack<Element>[] ConcurrentStacks = [];

    /// <summary>Empty ones first (i &lt; Empty), then Filled ones with the three Elements.</summary>
    private static T[] Make<T>(Func<int, T> empty, Func<T> filled, Action<T, Element> add)
    {
        var all = new T[Empty + Filled];
        for (int i = 0; i < Empty; i++) all[i] = empty(i);
        for (int i = Empty; i < all.Length; i++)
        {
            all[i] = filled();
            foreach (Element m in Three) add(all[i], m);
        }
        return all;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void MakeCollections()
    {
        // concurrency level 2, capacity 7: 7 buckets, 2 locks, whatever the machine's processor count
        ConcurrentDictionaries = Make(_ => new ConcurrentDictionary<int, Element>(2, 7), () => new ConcurrentDictionary<int, Element>(2, 7), (d, m) => d[m.Id] = m);
        // half new (one segment of 32 slots), half emptied after 40 items: the full first segment was
        // dropped, the second (64 slots, head = tail = 8) stays
        ConcurrentQueues = Make(i =>
        {
            var q = new ConcurrentQueue<Element>();
            if (i % 2 == 1)
            {
                for (int k = 0; k < 40; k++) q.Enqueue(Three[0]);
                while (q.TryDequeue(out _))
                {
                }
            }
            return q;
        }, () => new ConcurrentQueue<Element>(), (q, m) => q.Enqueue(m));
        // half never added to (no per-thread queue), half added to and emptied again (a queue of 32 slots)
        Bags = Make(i =>
        {
            var b = new ConcurrentBag<Element>();
            if (i % 2 == 1)
            {
                b.Add(Three[0]);
                b.TryTake(out _);
            }
            return b;
        }, () => new ConcurrentBag<Element>(), (b, m) => b.Add(m));
        SortedDictionaries = Make(_ => new SortedDictionary<int, Element>(), () => new SortedDictionary<int, Element>(), (d, m) => d.Add(m.Id, m));
        // half without storage, half with room for 4
        SortedLists = Make(i => i % 2 == 0 ? new SortedList<int, Element>() : new SortedList<int, Element>(4), () => new SortedList<int, Element>(), (l, m) => l.Add(m.Id, m));
        SortedSets = Make(_ => new SortedSet<Element>(), () => new SortedSet<Element>(), (s, m) => s.Add(m));
        LinkedLists = Make(_ => new LinkedList<Element>(), () => new LinkedList<Element>(), (l, m) => l.AddLast(m));
        // half wrapping a List<Element> of capacity 0, half one of capacity 8
        Collections = Make(i => i % 2 == 0 ? new Collection<Element>() : new Collection<Element>(new List<Element>(8)), () => new Collection<Element>(), (c, m) => c.Add(m));
        Observables = Make(_ => new ObservableCollection<Element>(), () => new ObservableCollection<Element>(), (c, m) => c.Add(m));
        // half without storage, half with room for 4 (element, priority) pairs
        PriorityQueues = Make(i => i % 2 == 0 ? new PriorityQueue<Element, int>() : new PriorityQueue<Element, int>(4), () => new PriorityQueue<Element, int>(), (q, m) => q.Enqueue(m, m.Id));
        // half never pushed to, half pushed to 3 times and popped empty: a linked stack keeps nothing
        ConcurrentStacks = Make(i =>
        {
            var s = new ConcurrentStack<Element>();
            if (i % 2 == 1)
            {
                s.PushRange(Three);
                s.Clear();
            }
            return s;
        }, () => new ConcurrentStack<Element>(), (s, m) => s.Push(m));
        // a List<Element> by another name, room for 4
        ElementLists = Make(_ => new ElementList(4), () => new ElementList(4), (l, m) => l.Add(m));
        // half with capacity 256 never appended to, half with 150 chars appended to capacity 200 and then cleared
        Builders = Make(i => i % 2 == 0 ? new StringBuilder(256) : new StringBuilder(200).Append('x', 150).Clear(), () => new StringBuilder(256), (b, m) => b.Append(m.Id));
    }
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
        CollectionsKept.MakeCollections();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine($"READY {Environment.ProcessId}");
        Console.Out.Flush();
        while (Console.In.Read() >= 0)
        {
        }
        GC.KeepAlive(Kept.Sparse);
        return 0;
    }
}
