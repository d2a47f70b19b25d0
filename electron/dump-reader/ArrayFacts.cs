using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// How full arrays and collections are (ARRAY_FILL and COLLECTION_FILL records, see
/// shared/formats/dump/dump-stream.ts), for the sparse/empty array and empty collection inspections.
///
/// Arrays: the length, the element size and the exact count of non-default elements (a null
/// reference, a zero primitive or an all-zero struct is default). Cost: every array's contents are
/// read once, in 64 KB blocks through the memory reader, and each element is tested for a non-zero
/// byte; no allocation per array.
///
/// Collections (List, Dictionary, HashSet, Queue, Stack of System.Collections.Generic): Count as the
/// collection computes it from its fields and the capacity (length of its backing array, 0 when it
/// has none). Cost: a few field reads per collection; field lookups are cached per method table.
/// ConcurrentDictionary is not covered (its count is spread over per-lock counters).
/// </summary>
public sealed class ArrayFacts(IMemoryReader memory, int pointerSize)
{
    private readonly byte[] _block = new byte[1 << 16];
    private readonly Dictionary<ulong, Layout?> _layouts = new();

    /// <summary>Fields of one collection type: Count = count − free (free absent for lists), capacity = backing array's length.</summary>
    private sealed record Layout(ClrInstanceField Count, ClrInstanceField? Free, ClrInstanceField Backing);

    public void Write(ClrObject obj, HeapStreamWriter w)
    {
        ClrType type = obj.Type!;
        if (type.IsArray) WriteArray(obj, type, w);
        else if (LayoutOf(type) is { } layout) WriteCollection(obj, layout, w);
    }

    private void WriteArray(ClrObject obj, ClrType type, HeapStreamWriter w)
    {
        int length = obj.AsArray().Length;
        int size = type.ComponentSize;
        if (length < 0 || size <= 0) return;
        ulong data = obj.Address + (ulong)(2 * pointerSize) + (ulong)(8 * MultiRank(type.Name));
        uint filled = 0;
        long total = (long)length * size;
        int perBlock = _block.Length / size;
        for (long done = 0; done < total;)
        {
            int want = (int)Math.Min(total - done, (long)perBlock * size);
            int got = memory.Read(data + (ulong)done, _block.AsSpan(0, want));
            if (got <= 0) break; // memory not in the dump: count what was read
            filled += CountNonZero(_block.AsSpan(0, got - got % size), size);
            if (got < want) break;
            done += got;
        }
        w.ArrayFill(obj.Address, (uint)length, filled, (uint)size);
    }

    private static uint CountNonZero(ReadOnlySpan<byte> span, int size)
    {
        // Elements of 1, 2, 4 or 8 bytes (bytes, chars, ints, references): a vectorized count of zeros.
        switch (size)
        {
            case 1: return (uint)(span.Length - span.Count((byte)0));
            case 2: return (uint)(span.Length / 2 - MemoryMarshal.Cast<byte, ushort>(span).Count((ushort)0));
            case 4: return (uint)(span.Length / 4 - MemoryMarshal.Cast<byte, uint>(span).Count(0u));
            case 8: return (uint)(span.Length / 8 - MemoryMarshal.Cast<byte, ulong>(span).Count(0ul));
        }
        uint n = 0;
        for (int i = 0; i < span.Length; i += size)
            if (span.Slice(i, size).IndexOfAnyExcept((byte)0) >= 0) n++;
        return n;
    }

    /// <summary>0 for a single-dimension zero-based array ("T[]"); else the rank, whose bounds sit before the data.</summary>
    private static int MultiRank(string? name)
    {
        if (name is null || name.EndsWith("[]", StringComparison.Ordinal)) return 0;
        int open = name.LastIndexOf('[');
        if (open < 0) return 0;
        return name.AsSpan(open).Count(',') + 1;
    }

    private void WriteCollection(ClrObject obj, Layout layout, HeapStreamWriter w)
    {
        int count = layout.Count.Read<int>(obj.Address, interior: false);
        if (layout.Free is { } free) count -= free.Read<int>(obj.Address, interior: false);
        ClrObject backing = layout.Backing.ReadObject(obj.Address, interior: false);
        uint capacity = 0;
        if (!backing.IsNull)
        {
            Span<byte> len = stackalloc byte[4];
            if (memory.Read(backing.Address + (ulong)pointerSize, len) == 4) capacity = BinaryPrimitives.ReadUInt32LittleEndian(len);
        }
        w.CollectionFill(obj.Address, (uint)Math.Max(count, 0), capacity);
    }

    private Layout? LayoutOf(ClrType type)
    {
        if (_layouts.TryGetValue(type.MethodTable, out Layout? known)) return known;
        Layout? layout = null;
        string name = type.Name ?? "";
        const string ns = "System.Collections.Generic.";
        if (name.StartsWith(ns, StringComparison.Ordinal))
        {
            string rest = name[ns.Length..];
            if (rest.StartsWith("List<", StringComparison.Ordinal)) layout = Make(type, "_size", null, "_items");
            else if (rest.StartsWith("Dictionary<", StringComparison.Ordinal) || rest.StartsWith("HashSet<", StringComparison.Ordinal)) layout = Make(type, "_count", "_freeCount", "_entries");
            else if (rest.StartsWith("Queue<", StringComparison.Ordinal) || rest.StartsWith("Stack<", StringComparison.Ordinal)) layout = Make(type, "_size", null, "_array");
        }
        _layouts[type.MethodTable] = layout;
        return layout;
    }

    /// <summary>The layout when the type has the fields this runtime's collections have (else null: not reported).</summary>
    private static Layout? Make(ClrType type, string count, string? free, string backing)
    {
        ClrInstanceField? c = type.GetFieldByName(count), b = type.GetFieldByName(backing);
        ClrInstanceField? f = free is null ? null : type.GetFieldByName(free);
        if (c is null || b is null || (free is not null && f is null)) return null;
        return new Layout(c, f, b);
    }
}
