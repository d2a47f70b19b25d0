using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// The objects of one heap segment in address order: what <c>segment.EnumerateObjects()</c>
/// (carefully: false) yields, object for object, with each object's size.
///
/// Why not ClrMD's enumeration: it resolves every object's method table through its type factory,
/// which takes a lock and looks up a dictionary per object; here the types are cached per method
/// table in a dictionary of this walk (a few hundred entries), and only a method table seen for
/// the first time asks ClrMD. The stepping is ClrMD's (ClrHeap.EnumerateObjects in ClrMD 4.2):
/// size = base size, plus count × component size for arrays and strings (plus the terminating
/// char of a string), at least three pointers; aligned to the pointer size (8 bytes on the large
/// and pinned heaps); allocation contexts (gen0 ranges the GC handed to threads, which hold no
/// objects) are skipped. Anything unexpected (unreadable memory, an unknown method table, an
/// allocation context that does not advance) hands the rest of the segment to ClrMD's own
/// enumeration, which then does exactly what it always did.
/// HEAPSCOPE_DUMP_READER_CLRMD_OBJECTS=1 uses ClrMD's enumeration throughout (the tests' oracle).
/// </summary>
public sealed class SegmentObjects(ClrHeap heap, IMemoryReader memory)
{
    private readonly int _ptr = memory.PointerSize;
    private readonly Dictionary<ulong, ClrType> _types = new();
    private Dictionary<ulong, ulong>? _allocationContexts;
    private readonly bool _clrmd = Environment.GetEnvironmentVariable("HEAPSCOPE_DUMP_READER_CLRMD_OBJECTS") == "1";

    /// <summary>Each object with its size as ClrObject.Size gives it (unaligned, at least three pointers).</summary>
    public IEnumerable<(ClrObject Object, ulong Size)> Enumerate(ClrSegment seg)
    {
        if (_clrmd)
        {
            foreach (ClrObject o in seg.EnumerateObjects()) yield return (o, o.Type is null ? 0 : o.Size);
            yield break;
        }
        _allocationContexts ??= heap.EnumerateAllocationContexts().GroupBy(r => r.Start).ToDictionary(g => g.Key, g => g.Last().End);
        MemoryRange range = seg.ObjectRange;
        ulong minSize = (ulong)(3 * _ptr);
        ulong align = seg.Kind is GCSegmentKind.Large or GCSegmentKind.Pinned ? 7UL : _ptr == 4 ? 3UL : 7UL;
        bool skipContexts = seg.Kind is not (GCSegmentKind.Large or GCSegmentKind.Frozen);
        ClrType? stringType = heap.StringType;
        ulong obj = seg.FirstObjectAddress;
        while (range.Contains(obj))
        {
            ClrType? type = null;
            ulong size = 0;
            bool ok = memory.ReadPointer(obj, out ulong mt) && mt != 0 && (_types.TryGetValue(mt, out type) || (type = Known(mt, obj)) is not null);
            if (ok && type!.ComponentSize != 0)
            {
                ok = memory.Read(obj + (ulong)_ptr, out uint count);
                if (type == stringType) count++;
                size = count * (ulong)type.ComponentSize + (ulong)type.StaticSize;
            }
            else if (ok) size = (uint)type!.StaticSize;
            if (!ok)
            {
                // ClrMD's enumeration from here on: it stops, or yields an object of its error type first.
                foreach (ClrObject o in seg.EnumerateObjects(new MemoryRange(obj, range.End), carefully: false))
                    yield return (o, o.Type is null ? 0 : o.Size);
                yield break;
            }
            yield return (heap.GetObject(obj, type!), size < minSize ? minSize : size);
            size = (size + align) & ~align;
            if (size < minSize) size = minSize;
            obj += size;
            if (skipContexts)
            {
                while (_allocationContexts.TryGetValue(obj, out ulong end))
                {
                    ulong next = end + ((minSize + align) & ~align);
                    if (obj >= next || next >= seg.End) yield break; // a damaged context: ClrMD stops the segment too
                    obj = next;
                }
            }
        }
    }

    private ClrType? Known(ulong mt, ulong obj)
    {
        ClrType? t = heap.GetObjectType(obj);
        if (t is not null && t.MethodTable == mt) _types[mt] = t;
        return t;
    }
}
