using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// How full the BCL's collections are (COLLECTION records, see shared/formats/dump/dump-stream.ts),
/// for the empty collections inspection: per collection its kind, Count, capacity (element slots
/// allocated) and storage bytes (the objects allocated to hold elements, counted only when the
/// capacity is above 0, so shared empty arrays are never counted).
///
/// Field names are those of .NET 10's BCL as ClrMD and SOS dumpobj list them; a type whose fields
/// differ (another runtime version) is not reported. Counts are read as the collection computes
/// them, except where it would take a lock (ConcurrentDictionary sums its per-lock counters).
/// Cost: a few field reads per collection; the kind is decided once per method table; chained
/// storage (queue segments, bag queues) is followed at most MaxChain links.
/// </summary>
public sealed class CollectionFacts
{
    /// <summary>Collection kinds (the index in COLLECTION_KINDS of shared/graph/fill-facts.ts; keep in step, only add).</summary>
    public enum Kind : byte
    {
        List = 0, Dictionary = 1, HashSet = 2, Queue = 3, Stack = 4, ConcurrentDictionary = 5, ConcurrentQueue = 6,
        ConcurrentBag = 7, SortedDictionary = 8, SortedList = 9, SortedSet = 10, LinkedList = 11, Collection = 12,
        StringBuilder = 13, PriorityQueue = 14, ConcurrentStack = 15, None = 255,
    }

    /// <summary>Links followed in a segment or queue chain (a damaged dump could hold a cycle).</summary>
    private const int MaxChain = 4096;

    /// <summary>Nodes counted in a ConcurrentStack (each node is read once, by its own stack; a cycle stops here).</summary>
    private const int MaxStackNodes = 1 << 24;

    private readonly Dictionary<ulong, Kind> _kinds = new();

    /// <summary>Count, capacity and storage of <paramref name="obj"/>, or false when it is not a collection this reader knows.</summary>
    public bool TryRead(ClrObject obj, out Kind kind, out uint count, out uint capacity, out ulong storage)
    {
        ClrType type = obj.Type!;
        count = capacity = 0;
        storage = 0;
        if (!_kinds.TryGetValue(type.MethodTable, out kind)) _kinds[type.MethodTable] = kind = KindOf(type);
        if (kind == Kind.None) return false;
        try
        {
            long n = 0, slots = 0, other = 0; // other: slots of a second array (values beside keys), not capacity
            ulong bytes = 0;
            switch (kind)
            {
                case Kind.List: n = obj.ReadField<int>("_size"); Backing(obj.ReadObjectField("_items"), ref slots, ref bytes); break;
                case Kind.Queue or Kind.Stack: n = obj.ReadField<int>("_size"); Backing(obj.ReadObjectField("_array"), ref slots, ref bytes); break;
                case Kind.PriorityQueue: n = obj.ReadField<int>("_size"); Backing(obj.ReadObjectField("_nodes"), ref slots, ref bytes); break;
                case Kind.Dictionary or Kind.HashSet:
                    n = obj.ReadField<int>("_count") - obj.ReadField<int>("_freeCount");
                    Backing(obj.ReadObjectField("_entries"), ref slots, ref bytes);
                    Backing(obj.ReadObjectField("_buckets"), ref other, ref bytes);
                    break;
                case Kind.SortedList:
                    n = obj.ReadField<int>("_size");
                    Backing(obj.ReadObjectField("keys"), ref slots, ref bytes);
                    Backing(obj.ReadObjectField("values"), ref other, ref bytes);
                    break;
                case Kind.SortedSet: n = slots = obj.ReadField<int>("count"); break;
                case Kind.LinkedList: n = slots = obj.ReadField<int>("count"); break;
                case Kind.SortedDictionary: n = slots = obj.ReadObjectField("_set").ReadField<int>("count"); break;
                case Kind.Collection:
                    ClrObject items = obj.ReadObjectField("items");
                    if (items.Type?.Name is not { } inner || !IsGeneric(inner, G + "List<")) return false; // wraps another IList: no count to read
                    n = items.ReadField<int>("_size");
                    Backing(items.ReadObjectField("_items"), ref slots, ref bytes);
                    break;
                case Kind.ConcurrentDictionary: ReadConcurrentDictionary(obj, ref n, ref slots, ref bytes); break;
                case Kind.ConcurrentQueue: ReadConcurrentQueue(obj, ref n, ref slots, ref bytes); break;
                case Kind.ConcurrentBag: ReadConcurrentBag(obj, ref n, ref slots, ref bytes); break;
                case Kind.ConcurrentStack:
                    // node-based: Count is the length of the _head → _next chain
                    for (ClrObject node = obj.ReadObjectField("_head"); !node.IsNull && n < MaxStackNodes; node = node.ReadObjectField("_next")) n++;
                    slots = n;
                    break;
                case Kind.StringBuilder:
                    int offset = obj.ReadField<int>("m_ChunkOffset");
                    n = offset + obj.ReadField<int>("m_ChunkLength");
                    Backing(obj.ReadObjectField("m_ChunkChars"), ref slots, ref bytes);
                    slots += offset;
                    break;
            }
            count = (uint)Math.Clamp(n, 0, uint.MaxValue);
            capacity = (uint)Math.Clamp(slots, 0, uint.MaxValue);
            storage = capacity == 0 ? 0 : bytes;
            return true;
        }
        catch (ArgumentException)
        {
            // A field this runtime's type does not have: stop reading the type.
            _kinds[type.MethodTable] = Kind.None;
            return false;
        }
        catch (InvalidOperationException)
        {
            return false; // a field read through a null or unreadable object (a damaged dump): skip this one
        }
    }

    /// <summary>Adds an array's length to <paramref name="slots"/> and its size to <paramref name="bytes"/> (nothing for null).</summary>
    private static void Backing(ClrObject array, ref long slots, ref ulong bytes)
    {
        if (array.IsNull || !array.IsArray) return;
        slots += array.AsArray().Length;
        bytes += array.Size;
    }

    /// <summary>Count = Σ the per-lock counters; capacity = buckets; storage = the Tables object, its buckets, lock and counter arrays and the other locks.</summary>
    private static void ReadConcurrentDictionary(ClrObject obj, ref long n, ref long slots, ref ulong bytes)
    {
        ClrObject tables = obj.ReadObjectField("_tables");
        if (tables.IsNull) return;
        bytes += tables.Size;
        Backing(tables.ReadObjectField("_buckets"), ref slots, ref bytes);
        ClrObject counts = tables.ReadObjectField("_countPerLock");
        if (!counts.IsNull && counts.IsArray)
        {
            ClrArray a = counts.AsArray();
            for (int i = 0; i < a.Length; i++) n += a.GetValue<int>(i);
            bytes += counts.Size;
        }
        ClrObject locks = tables.ReadObjectField("_locks");
        if (!locks.IsNull && locks.IsArray)
        {
            ClrArray a = locks.AsArray();
            bytes += locks.Size;
            for (int i = 0; i < a.Length; i++)
            {
                ClrObject l = a.GetObjectValue(i);
                if (!l.IsNull && l.Address != locks.Address) bytes += l.Size; // locks[0] is the array itself (it saves an allocation)
            }
        }
    }

    /// <summary>
    /// Count = Σ over segments of tail − head (a segment frozen for enqueues has its tail raised by
    /// twice its length, as ConcurrentQueueSegment does); capacity = Σ slots; storage = segments and slot arrays.
    /// </summary>
    private static void ReadConcurrentQueue(ClrObject obj, ref long n, ref long slots, ref ulong bytes)
    {
        ClrObject segment = obj.ReadObjectField("_head");
        for (int links = 0; !segment.IsNull && links < MaxChain; links++)
        {
            ClrInstanceField field = segment.Type?.GetFieldByName("_headAndTail") ?? throw new ArgumentException("a queue segment without _headAndTail");
            ClrValueType headAndTail = segment.ReadValueTypeField(field);
            long head = headAndTail.ReadField<int>("Head"), tail = headAndTail.ReadField<int>("Tail");
            long before = slots;
            bytes += segment.Size;
            Backing(segment.ReadObjectField("_slots"), ref slots, ref bytes);
            if (segment.ReadField<bool>("_frozenForEnqueues")) tail -= 2 * (slots - before);
            n += Math.Max(0, tail - head);
            segment = segment.ReadObjectField("_nextSegment");
        }
    }

    /// <summary>Count = Σ over the per-thread queues of tail − head; capacity = Σ their arrays; storage = the queues and arrays.</summary>
    private static void ReadConcurrentBag(ClrObject obj, ref long n, ref long slots, ref ulong bytes)
    {
        ClrObject queue = obj.ReadObjectField("_workStealingQueues");
        for (int links = 0; !queue.IsNull && links < MaxChain; links++)
        {
            n += Math.Max(0, queue.ReadField<int>("_tailIndex") - queue.ReadField<int>("_headIndex"));
            bytes += queue.Size;
            Backing(queue.ReadObjectField("_array"), ref slots, ref bytes);
            queue = queue.ReadObjectField("_nextQueue");
        }
    }

    private const string G = "System.Collections.Generic.", C = "System.Collections.Concurrent.", O = "System.Collections.ObjectModel.";

    /// <summary>Generic collection types by name prefix (the type itself or a base type of it).</summary>
    private static readonly (string Prefix, Kind Kind)[] Generic =
    [
        (G + "List<", Kind.List), (G + "Dictionary<", Kind.Dictionary), (G + "HashSet<", Kind.HashSet), (G + "Queue<", Kind.Queue),
        (G + "Stack<", Kind.Stack), (G + "PriorityQueue<", Kind.PriorityQueue), (G + "SortedDictionary<", Kind.SortedDictionary),
        (G + "SortedList<", Kind.SortedList), (G + "SortedSet<", Kind.SortedSet), (G + "LinkedList<", Kind.LinkedList),
        (C + "ConcurrentDictionary<", Kind.ConcurrentDictionary), (C + "ConcurrentQueue<", Kind.ConcurrentQueue),
        (C + "ConcurrentBag<", Kind.ConcurrentBag), (C + "ConcurrentStack<", Kind.ConcurrentStack), (O + "Collection<", Kind.Collection),
    ];

    /// <summary>
    /// The kind of the type or of its nearest base type that is one (a user's <c>class Orders : List&lt;Order&gt;</c>,
    /// ObservableCollection&lt;T&gt; through Collection&lt;T&gt;), except types that derive from one but are parts
    /// of another or keep more than it: SortedDictionary's TreeSet (reported as the SortedDictionary),
    /// SortedSet's views (TreeSubSet), KeyedCollection (a dictionary beside the list).
    /// </summary>
    private static Kind KindOf(ClrType type)
    {
        if (type.Name == "System.Text.StringBuilder") return Kind.StringBuilder;
        for (ClrType? t = type; t is not null; t = t.BaseType)
        {
            string n = t.Name ?? "";
            if (IsGeneric(n, G + "TreeSet<") || n.EndsWith("+TreeSubSet", StringComparison.Ordinal) || IsGeneric(n, O + "KeyedCollection<")) return Kind.None;
            foreach ((string prefix, Kind kind) in Generic)
                if (IsGeneric(n, prefix)) return kind;
        }
        return Kind.None;
    }

    /// <summary>Whether <paramref name="name"/> is <paramref name="prefix"/>…&gt; itself, not a type nested in it ("List&lt;T&gt;+Enumerator").</summary>
    internal static bool IsGeneric(string name, string prefix)
    {
        if (!name.StartsWith(prefix, StringComparison.Ordinal) || name[^1] != '>') return false;
        int depth = 1;
        for (int i = prefix.Length; i < name.Length; i++)
        {
            if (name[i] == '<') depth++;
            else if (name[i] == '>' && --depth == 0) return i == name.Length - 1;
        }
        return false;
    }
}
