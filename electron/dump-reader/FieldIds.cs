using System.Runtime.CompilerServices;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// The string id of the field holding a reference, cached per field object. ClrMD hands out one
/// ClrInstanceField object per field of a type (the type caches its field list), so looking the
/// field up by reference replaces hashing its name (and building "outer.inner" for a reference
/// inside an embedded struct) on every reference of the walk. Ids are interned on a field's first
/// use, in the same order as before, so the stream is byte-identical.
/// </summary>
public sealed class FieldIds(HeapStreamWriter w)
{
    private readonly Dictionary<ClrInstanceField, uint> _outer = new(ReferenceEqualityComparer.Instance);
    private readonly Dictionary<(ClrInstanceField?, ClrInstanceField), uint> _inner = new(InnerComparer.Instance);

    public uint Id(ClrReference r)
    {
        ClrInstanceField? outer = r.Field;
        if (r.InnerField is { Field: { } inner } && inner.Name is not null)
        {
            // A reference inside an embedded struct: "outer.inner".
            if (_inner.TryGetValue((outer, inner), out uint id)) return id;
            id = w.Intern(outer?.Name is string o ? $"{o}.{inner.Name}" : inner.Name);
            _inner.Add((outer, inner), id);
            return id;
        }
        if (outer is null) return HeapStreamWriter.None;
        if (_outer.TryGetValue(outer, out uint oid)) return oid;
        oid = w.Intern(outer.Name);
        _outer.Add(outer, oid);
        return oid;
    }

    /// <summary>Reference equality on both fields (ClrInstanceField's own Equals is not needed and costs more).</summary>
    private sealed class InnerComparer : IEqualityComparer<(ClrInstanceField?, ClrInstanceField)>
    {
        public static readonly InnerComparer Instance = new();
        public bool Equals((ClrInstanceField?, ClrInstanceField) a, (ClrInstanceField?, ClrInstanceField) b) =>
            ReferenceEquals(a.Item1, b.Item1) && ReferenceEquals(a.Item2, b.Item2);
        public int GetHashCode((ClrInstanceField?, ClrInstanceField) k) =>
            HashCode.Combine(k.Item1 is null ? 0 : RuntimeHelpers.GetHashCode(k.Item1), RuntimeHelpers.GetHashCode(k.Item2));
    }
}
