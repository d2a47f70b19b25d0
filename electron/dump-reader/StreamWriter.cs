using System.Buffers.Binary;
using System.Text;

namespace Heapscope.DumpReader;

/// <summary>
/// Writes the record stream that shared/formats/dump/dump-stream.ts documents and decodes:
/// little-endian fixed-width fields, one tag byte per record, strings interned once in a table
/// (type names, field names, root labels repeat a lot) and referred to by id.
/// </summary>
public sealed class HeapStreamWriter : IDisposable
{
    public const byte TagString = 0x01, TagInfo = 0x02, TagType = 0x03, TagObject = 0x04, TagRoot = 0x05, TagDependent = 0x06, TagStringValue = 0x08, TagProgress = 0x09, TagError = 0x7e, TagEnd = 0x7f;
    public const uint None = 0xffffffff;

    private readonly Stream _out;
    private readonly byte[] _buf = new byte[64];
    private readonly Dictionary<string, uint> _strings = new(StringComparer.Ordinal);
    /// <summary>Next string id: interned names and once-only texts (string values) share the id space.</summary>
    private uint _nextString;
    public ulong Objects, References, Roots;

    public HeapStreamWriter(Stream output)
    {
        _out = new BufferedStream(output, 1 << 16);
        _out.Write("HSDUMP01"u8);
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
        _out.WriteByte(TagString);
        U32(id);
        U32((uint)bytes.Length);
        _out.Write(bytes);
        return id;
    }

    public void Info(string key, string value)
    {
        uint k = Intern(key), v = Intern(value);
        _out.WriteByte(TagInfo);
        U32(k);
        U32(v);
    }

    public void Type(uint typeId, string name, string? module)
    {
        uint n = Intern(name), m = Intern(module);
        _out.WriteByte(TagType);
        U32(typeId);
        U32(n);
        U32(m);
    }

    /// <summary>Object header; exactly <paramref name="refCount"/> Reference calls follow.</summary>
    public void Object(ulong address, uint typeId, ulong size, byte generation, uint refCount)
    {
        _out.WriteByte(TagObject);
        U64(address);
        U32(typeId);
        U64(size);
        _out.WriteByte(generation);
        U32(refCount);
        Objects++;
    }

    public void Reference(ulong target, uint fieldName)
    {
        U64(target);
        U32(fieldName);
        References++;
    }

    public void Root(byte kind, uint group, uint name, ulong obj)
    {
        _out.WriteByte(TagRoot);
        _out.WriteByte(kind);
        U32(group);
        U32(name);
        U64(obj);
        Roots++;
    }

    public void Dependent(ulong key, ulong value)
    {
        _out.WriteByte(TagDependent);
        U64(key);
        U64(value);
    }

    /// <summary>Heap walk progress: bytes of segments walked of their total. Flushed, so the app's bar moves now.</summary>
    public void Progress(ulong done, ulong total)
    {
        _out.WriteByte(TagProgress);
        U64(done);
        U64(total);
        _out.Flush();
    }

    /// <summary>
    /// The contents of the string object just written (STRING_VALUE). <paramref name="text"/> is the
    /// string id of the value's (bounded) text on the value's first occurrence, NONE on repeats.
    /// </summary>
    public void StringValue(ulong address, uint valueId, uint text, uint fullLength)
    {
        _out.WriteByte(TagStringValue);
        U64(address);
        U32(valueId);
        U32(text);
        U32(fullLength);
    }

    public const byte TagArrayFill = 0x0a;

    /// <summary>ARRAY_FILL for the array object just written: length, non-default elements, element size (ArrayFacts.cs).</summary>
    public void ArrayFill(ulong address, uint length, uint nonDefault, uint elementSize)
    {
        _out.WriteByte(TagArrayFill);
        U64(address);
        U32(length);
        U32(nonDefault);
        U32(elementSize);
    }

    public const byte TagCollection = 0x0c;

    /// <summary>COLLECTION for the collection object just written: kind, Count, capacity in elements, storage bytes (CollectionFacts.cs).</summary>
    public void Collection(ulong address, byte kind, uint count, uint capacity, ulong storage)
    {
        _out.WriteByte(TagCollection);
        U64(address);
        _out.WriteByte(kind);
        U32(count);
        U32(capacity);
        U64(storage);
    }

    public void Error(string code, string message, string detail)
    {
        _out.WriteByte(TagError);
        Inline(code);
        Inline(message);
        Inline(detail);
        _out.Flush();
    }

    public void End()
    {
        _out.WriteByte(TagEnd);
        U64(Objects);
        U64(References);
        U64(Roots);
        _out.Flush();
    }

    private void Inline(string s)
    {
        byte[] bytes = Encoding.UTF8.GetBytes(s);
        U32((uint)bytes.Length);
        _out.Write(bytes);
    }

    private void U32(uint v)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(_buf, v);
        _out.Write(_buf, 0, 4);
    }

    private void U64(ulong v)
    {
        BinaryPrimitives.WriteUInt64LittleEndian(_buf, v);
        _out.Write(_buf, 0, 8);
    }

    public void Dispose() => _out.Flush();
}
