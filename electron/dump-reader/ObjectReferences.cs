using System.Buffers.Binary;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// The references of one object with the string id of the field holding each: what
/// <c>obj.EnumerateReferencesWithFields(carefully: false, considerDependantHandles: false)</c>
/// yields, in the same order, with the same field ids (so the stream stays byte-identical).
///
/// Why not ClrMD's enumeration: it looks up the type of every reference's target (a lock and a
/// dictionary lookup in ClrMD's type factory per reference) and allocates an iterator and a
/// ClrReference each; the stream needs only the target's address. Here the object's bytes are
/// read once into a reused buffer and walked with the type's GCDesc (ClrMD's own walker, as its
/// enumeration does); the field is found once per (type, offset) and its id cached in a small
/// array per type, indexed by pointer slot. Array types have no fields (ClrMD gives their
/// element references no field), so arrays need no cache at all.
/// Cost: one memory read per object with pointers; memory: one entry per type plus one slot
/// per pointer-sized word of its (fixed) instance size, and a buffer of at most 1 MB (bigger
/// objects, always arrays, go through ClrMD's enumeration, which reads them in place).
/// </summary>
public sealed class ObjectReferences(IMemoryReader memory, FieldIds fieldIds)
{
    private readonly int _ptr = memory.PointerSize;
    private readonly Dictionary<ulong, TypeRefs> _types = new();
    private byte[] _bytes = new byte[Block];

    /// <summary>What the walk needs of one type: its GCDesc, and field ids by slot (NotYet until first seen).</summary>
    private sealed class TypeRefs(ClrType type, GCDesc gcdesc, bool hasFields)
    {
        public readonly ClrType Type = type;
        public readonly GCDesc GCDesc = gcdesc;
        public readonly bool HasFields = hasFields;
        public uint[] FieldBySlot = [];
    }

    private const uint NotYet = 0xfffffffe;
    /// <summary>Objects up to this size are copied into the reused buffer; bigger ones are left to ClrMD.</summary>
    private const ulong MaxCopied = 1 << 20;
    /// <summary>Bytes of a big reference array read at a time (the buffer always holds this much).</summary>
    private const int Block = 1 << 16;

    /// <summary>Appends (target, field id) of each non-null reference of <paramref name="obj"/> (of <paramref name="size"/> bytes).</summary>
    public void Collect(ClrObject obj, ClrType type, ulong size, List<(ulong Target, uint Field)> refs)
    {
        if (!type.ContainsPointers) return;
        if (!_types.TryGetValue(type.MethodTable, out TypeRefs? t))
        {
            t = new TypeRefs(type, type.GCDesc, !type.Fields.IsEmpty);
            _types.Add(type.MethodTable, t);
        }
        if (t.GCDesc.IsEmpty || size > int.MaxValue) return;
        if (size > MaxCopied)
        {
            // A big array (no other object is this big): not copied whole. A one-dimension array of
            // references is read in blocks (its non-null elements in order are what the GCDesc walk
            // gives); others go to ClrMD, which walks them in place in the mapped dump. Array
            // elements have no field name.
            if (type.ComponentType is { IsObjectReference: true } && type.Name is { } name && name.EndsWith("[]", StringComparison.Ordinal))
            {
                ReferenceArray(obj, refs);
                return;
            }
            foreach (ClrReference r in obj.EnumerateReferencesWithFields(carefully: false, considerDependantHandles: false))
                refs.Add((r.Object.Address, r.IsField ? fieldIds.Id(r) : HeapStreamWriter.None));
            return;
        }
        int intSize = (int)size;
        if (_bytes.Length < intSize) _bytes = new byte[Math.Max(intSize, 2 * _bytes.Length)];
        int read = memory.Read(obj.Address, _bytes.AsSpan(0, intSize));
        if (read <= _ptr) return;
        // Memory missing from the dump: walk what was read (as ClrMD's fallback does), zeros past it.
        if (read < intSize) _bytes.AsSpan(read, intSize - read).Clear();
        foreach ((ulong target, int offset) in t.GCDesc.WalkObject(_bytes, read))
            refs.Add((target, t.HasFields ? FieldId(t, offset - _ptr) : HeapStreamWriter.None));
    }

    private void ReferenceArray(ClrObject obj, List<(ulong Target, uint Field)> refs)
    {
        if (!memory.Read(obj.Address + (ulong)_ptr, out uint length)) return;
        ulong at = obj.Address + (ulong)(2 * _ptr);
        int perBlock = Block / _ptr;
        for (ulong done = 0; done < length;)
        {
            int want = (int)Math.Min(length - done, (ulong)perBlock);
            int got = memory.Read(at + done * (ulong)_ptr, _bytes.AsSpan(0, want * _ptr)) / _ptr;
            for (int i = 0; i < got; i++)
            {
                ulong target = _ptr == 8 ? BinaryPrimitives.ReadUInt64LittleEndian(_bytes.AsSpan(8 * i)) : BinaryPrimitives.ReadUInt32LittleEndian(_bytes.AsSpan(4 * i));
                if (target != 0) refs.Add((target, HeapStreamWriter.None));
            }
            if (got < want) return; // memory not in the dump: the elements read so far
            done += (ulong)got;
        }
    }

    private uint FieldId(TypeRefs t, int offset)
    {
        int slot = offset / _ptr;
        if (offset % _ptr != 0 || offset < 0) return Lookup(t, offset);
        if (slot >= t.FieldBySlot.Length)
        {
            int old = t.FieldBySlot.Length;
            Array.Resize(ref t.FieldBySlot, Math.Max(slot + 1, 2 * old));
            t.FieldBySlot.AsSpan(old).Fill(NotYet);
        }
        uint id = t.FieldBySlot[slot];
        if (id == NotYet) t.FieldBySlot[slot] = id = Lookup(t, offset);
        return id;
    }

    /// <summary>The field id ClrMD's ClrReference gives a reference at this offset (the target plays no part in it).</summary>
    private uint Lookup(TypeRefs t, int offset) => fieldIds.Id(ClrReference.CreateFromFieldOrArray(default, t.Type, offset));
}
