using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// How full arrays and collections are (ARRAY_FILL and COLLECTION records, see
/// shared/formats/dump/dump-stream.ts), for the sparse/empty array and empty collection inspections.
///
/// Arrays: the length, the element size and the exact count of non-default elements (a null
/// reference, a zero primitive or an all-zero struct is default). Cost: every array's contents are
/// read once, in 64 KB blocks through the memory reader, and each element is tested for a non-zero
/// byte; no allocation per array.
///
/// Collections: kind, Count, capacity and storage bytes as CollectionFacts.cs reads them.
/// </summary>
public sealed class ArrayFacts(IMemoryReader memory, int pointerSize)
{
    private readonly byte[] _block = new byte[1 << 16];
    private readonly CollectionFacts _collections = new();

    public void Write(ClrObject obj, HeapStreamWriter w)
    {
        ClrType type = obj.Type!;
        if (type.IsArray) WriteArray(obj, type, w);
        else if (_collections.TryRead(obj, out CollectionFacts.Kind kind, out uint count, out uint capacity, out ulong storage))
            w.Collection(obj.Address, (byte)kind, count, capacity, storage);
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
}
