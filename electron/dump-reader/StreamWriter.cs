using System.Buffers.Binary;
using System.Text;

namespace Heapscope.DumpReader;

/// <summary>
/// Writes the record stream that shared/formats/dump/dump-stream.ts documents and decodes:
/// little-endian fixed-width fields, one tag byte per record, strings interned once in a table
/// (type names, field names, root labels repeat a lot) and referred to by id.
///
/// Fields go straight into one 64 KB array that is written out when full: the heap walk writes a
/// few fields per object and two per reference (tens of millions of writes on a big heap), and a
/// BufferedStream.Write call per field cost more CPU than encoding them (bench:dump profile).
/// </summary>
public sealed class HeapStreamWriter : IDisposable
{
    public const byte TagString = 0x01, TagInfo = 0x02, TagType = 0x03, TagObject = 0x04, TagRoot = 0x05, TagDependent = 0x06, TagStringValue = 0x08, TagProgress = 0x09, TagError = 0x7e, TagEnd = 0x7f;
    public const uint None = 0xffffffff;

    private readonly Stream _out;
    private readonly byte[] _buf = new byte[1 << 16];
    private int _at;
    private readonly Dictionary<string, uint> _strings = new(StringComparer.Ordinal);
    /// <summary>Next string id: interned names and once-only texts (string values) share the id space.</summary>
    private uint _nextString;
    public ulong Objects, References, Roots;

    public HeapStreamWriter(Stream output)
    {
        _out = output;
        Bytes("HSDUMP01"u8);
    }

    public uint Intern(string? s)
    {
        if (s is null) return None;
        if (_strings.TryGetValue(s, out uint id)) return id;
        id = WriteString(s);
        _strings.Add(s, id);
        return id;
    }

    /// <summary>
    /// A STRING record for text written once (a string value: StringValues already keeps one entry
    /// per distinct value, so interning it here too would hold every value twice).
    /// </summary>
    public uint WriteString(string s)
    {
        uint id = _nextString++;
        byte[] bytes = Encoding.UTF8.GetBytes(s);
        U8(TagString);
        U32(id);
        U32((uint)bytes.Length);
        Bytes(bytes);
        return id;
    }

    public void Info(string key, string value)
    {
        uint k = Intern(key), v = Intern(value);
        U8(TagInfo);
        U32(k);
        U32(v);
    }

    public void Type(uint typeId, string name, string? module)
    {
        uint n = Intern(name), m = Intern(module);
        U8(TagType);
        U32(typeId);
        U32(n);
        U32(m);
    }

    /// <summary>Object header; exactly <paramref name="refCount"/> Reference calls follow.</summary>
    public void Object(ulong address, uint typeId, ulong size, byte generation, uint refCount)
    {
        // The two hottest records are encoded in place after one room check (26 and 12 bytes).
        if (_buf.Length - _at < 26) Drain();
        Span<byte> b = _buf.AsSpan(_at, 26);
        b[0] = TagObject;
        BinaryPrimitives.WriteUInt64LittleEndian(b[1..], address);
        BinaryPrimitives.WriteUInt32LittleEndian(b[9..], typeId);
        BinaryPrimitives.WriteUInt64LittleEndian(b[13..], size);
        b[21] = generation;
        BinaryPrimitives.WriteUInt32LittleEndian(b[22..], refCount);
        _at += 26;
        Objects++;
    }

    public void Reference(ulong target, uint fieldName)
    {
        if (_buf.Length - _at < 12) Drain();
        Span<byte> b = _buf.AsSpan(_at, 12);
        BinaryPrimitives.WriteUInt64LittleEndian(b, target);
        BinaryPrimitives.WriteUInt32LittleEndian(b[8..], fieldName);
        _at += 12;
        References++;
    }

    public void Root(byte kind, uint group, uint name, ulong obj)
    {
        U8(TagRoot);
        U8(kind);
        U32(group);
        U32(name);
        U64(obj);
        Roots++;
    }

    public void Dependent(ulong key, ulong value)
    {
        U8(TagDependent);
        U64(key);
        U64(value);
    }

    /// <summary>Heap walk progress: bytes of segments walked of their total. Flushed, so the app's bar moves now.</summary>
    public void Progress(ulong done, ulong total)
    {
        U8(TagProgress);
        U64(done);
        U64(total);
        Flush();
    }

    /// <summary>
    /// The contents of the string object just written (STRING_VALUE). <paramref name="text"/> is the
    /// string id of the value's (bounded) text on the value's first occurrence, NONE on repeats.
    /// </summary>
    public void StringValue(ulong address, uint valueId, uint text, uint fullLength)
    {
        U8(TagStringValue);
        U64(address);
        U32(valueId);
        U32(text);
        U32(fullLength);
    }

    public const byte TagArrayFill = 0x0a;

    /// <summary>ARRAY_FILL for the array object just written: length, non-default elements, element size (ArrayFacts.cs).</summary>
    public void ArrayFill(ulong address, uint length, uint nonDefault, uint elementSize)
    {
        U8(TagArrayFill);
        U64(address);
        U32(length);
        U32(nonDefault);
        U32(elementSize);
    }

    public const byte TagCollection = 0x0c;

    /// <summary>COLLECTION for the collection object just written: kind, Count, capacity in elements, storage bytes (CollectionFacts.cs).</summary>
    public void Collection(ulong address, byte kind, uint count, uint capacity, ulong storage)
    {
        U8(TagCollection);
        U64(address);
        U8(kind);
        U32(count);
        U32(capacity);
        U64(storage);
    }

    public const byte TagTypeHistogram = 0x0d;

    /// <summary>TYPE_HISTOGRAM: objects and bytes per type id (the stats pass before the walk, HeapWalker.cs). Flushed: the app shows it now.</summary>
    public void TypeHistogram(IReadOnlyList<ulong> count, IReadOnlyList<ulong> bytes)
    {
        uint n = 0;
        for (int i = 0; i < count.Count; i++) if (count[i] > 0) n++;
        U8(TagTypeHistogram);
        U32(n);
        for (int i = 0; i < count.Count; i++)
        {
            if (count[i] == 0) continue;
            U32((uint)i);
            U64(count[i]);
            U64(bytes[i]);
        }
        Flush();
    }

    public void Error(string code, string message, string detail)
    {
        U8(TagError);
        Inline(code);
        Inline(message);
        Inline(detail);
        Flush();
    }

    public void End()
    {
        U8(TagEnd);
        U64(Objects);
        U64(References);
        U64(Roots);
        Flush();
    }

    private void Inline(string s)
    {
        byte[] bytes = Encoding.UTF8.GetBytes(s);
        U32((uint)bytes.Length);
        Bytes(bytes);
    }

    private void U8(byte v)
    {
        if (_at == _buf.Length) Drain();
        _buf[_at++] = v;
    }

    private void U32(uint v)
    {
        if (_buf.Length - _at < 4) Drain();
        BinaryPrimitives.WriteUInt32LittleEndian(_buf.AsSpan(_at), v);
        _at += 4;
    }

    private void U64(ulong v)
    {
        if (_buf.Length - _at < 8) Drain();
        BinaryPrimitives.WriteUInt64LittleEndian(_buf.AsSpan(_at), v);
        _at += 8;
    }

    private void Bytes(ReadOnlySpan<byte> b)
    {
        while (b.Length > 0)
        {
            if (_at == _buf.Length) Drain();
            int n = Math.Min(b.Length, _buf.Length - _at);
            b[..n].CopyTo(_buf.AsSpan(_at));
            _at += n;
            b = b[n..];
        }
    }

    /// <summary>Write out the buffered bytes (the buffer is full, or a record must reach the reader now).</summary>
    private void Drain()
    {
        if (_at == 0) return;
        _out.Write(_buf, 0, _at);
        _at = 0;
    }

    private void Flush()
    {
        Drain();
        _out.Flush();
    }

    public void Dispose() => Flush();
}
