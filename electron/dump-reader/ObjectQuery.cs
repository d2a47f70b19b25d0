using System.Text;
using System.Text.Json;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// `object ADDRESS`: one object's type, size, generation and instance fields with their values
/// (primitives, enums by name, strings bounded, references as address + type, embedded structs
/// a few levels deep); for arrays the length, element type and first elements; for a string its
/// (bounded) text. JSON shape: README (heapscope object) and shared/formats/dump/dump-queries.ts
/// (DumpObject, DumpValue). An address that is not the start of a heap object is object/not-found.
/// </summary>
public static class ObjectQuery
{
    public const int DefaultElements = 20;
    public const int MaxElements = 1000;
    public const int DefaultChars = 1024;
    /// <summary>Embedded structs inside structs are expanded this deep, then shown as their type only.</summary>
    private const int MaxStructDepth = 3;

    public static void Write(DumpSession s, ulong address, int elements, int chars, Utf8JsonWriter j)
    {
        ClrObject obj = Find(s, address);
        ClrType type = obj.Type!;
        j.WriteStartObject();
        j.WriteString("address", Hex.Of(obj.Address));
        j.WriteString("type", type.Name ?? "<unknown type>");
        j.WriteString("methodTable", Hex.Of(type.MethodTable));
        if (type.Module?.Name is string module) j.WriteString("module", Path.GetFileName(module));
        else j.WriteNull("module");
        j.WriteNumber("size", obj.Size);
        j.WriteString("generation", GenerationName(s.Heap.GetSegmentByAddress(obj.Address)?.GetGeneration(obj.Address)));

        if (type.IsString) WriteStringContents(s, obj.Address, chars, j, "string");
        else j.WriteNull("string");

        if (obj.IsArray) WriteArray(s, obj, elements, chars, j);
        else j.WriteNull("array");

        j.WriteStartArray("fields");
        foreach (ClrInstanceField f in type.Fields) WriteField(s, f, f.GetAddress(obj.Address), chars, 0, j);
        j.WriteEndArray();
        j.WriteEndObject();
    }

    /// <summary>The object that starts at `address`, or object/not-found.</summary>
    public static ClrObject Find(DumpSession s, ulong address)
    {
        ClrSegment? seg = s.Heap.GetSegmentByAddress(address);
        ClrObject obj = seg is null ? default : s.Heap.GetObject(address);
        // An address inside an object or in free space reads a "method table" that is not one (no
        // type), a Free block, or a header ClrMD flags as corrupt.
        if (seg is null || obj.Type is null || obj.IsFree || !obj.IsValid || s.Heap.IsObjectCorrupted(address, out _))
            throw new DumpError("object/not-found", $"{Hex.Of(address)} is not the address of an object on the managed heap of this dump");
        return obj;
    }

    private static void WriteArray(DumpSession s, ClrObject obj, int elements, int chars, Utf8JsonWriter j)
    {
        ClrArray array = obj.AsArray();
        ClrType? component = obj.Type!.ComponentType;
        int shown = Math.Min(array.Length, elements);
        j.WriteStartObject("array");
        j.WriteNumber("length", array.Length);
        j.WriteNumber("rank", array.Rank);
        j.WriteString("elementType", component?.Name ?? "<unknown type>");
        j.WriteStartArray("elements");
        for (int i = 0; i < shown; i++)
        {
            ulong at = obj.Type.GetArrayElementAddress(obj.Address, i);
            ClrElementType et = component?.ElementType ?? ClrElementType.Object;
            WriteValue(s, at, et, component, chars, 0, j);
        }
        j.WriteEndArray();
        j.WriteBoolean("truncated", shown < array.Length);
        j.WriteEndObject();
    }

    private static void WriteField(DumpSession s, ClrInstanceField f, ulong at, int chars, int depth, Utf8JsonWriter j)
    {
        j.WriteStartObject();
        j.WriteString("name", f.Name ?? "<unnamed>");
        j.WriteString("declaredType", s.DeclaredTypes.Name(f));
        j.WriteNumber("offset", f.Offset);
        j.WritePropertyName("value");
        WriteValue(s, at, f.ElementType, f.Type, chars, depth, j);
        j.WriteEndObject();
    }

    /// <summary>The value stored at `at` (a field or an array element) as a tagged JSON object.</summary>
    private static void WriteValue(DumpSession s, ulong at, ClrElementType et, ClrType? type, int chars, int depth, Utf8JsonWriter j)
    {
        IDataReader r = s.Target.DataReader;
        j.WriteStartObject();
        if (type is { IsEnum: true })
        {
            ClrEnum e = type.AsEnum();
            // Int128 holds every underlying type's values (a ulong enum past long.MaxValue too).
            Int128 v = ReadInteger(r, at, e.ElementType);
            string? name = null;
            foreach ((string n, object? value) in e.EnumerateValues())
                if (value is not null && ToInt128(value) == v) { name = n; break; }
            j.WriteString("kind", "enum");
            // A number where JSON keeps every digit (|v| ≤ 2^53), else the decimal string, as for 64-bit primitives.
            if (Int128.Abs(v) <= (Int128)(1L << 53)) j.WriteNumber("value", (long)v);
            else j.WriteString("value", v.ToString());
            if (name is null) j.WriteNull("name");
            else j.WriteString("name", name);
            j.WriteString("text", name ?? v.ToString());
        }
        else switch (et)
        {
            case ClrElementType.Boolean:
                Primitive(j, r.Read<byte>(at) != 0);
                break;
            case ClrElementType.Char:
                Primitive(j, ((char)r.Read<ushort>(at)).ToString());
                break;
            case ClrElementType.Int8: Primitive(j, r.Read<sbyte>(at)); break;
            case ClrElementType.UInt8: Primitive(j, r.Read<byte>(at)); break;
            case ClrElementType.Int16: Primitive(j, r.Read<short>(at)); break;
            case ClrElementType.UInt16: Primitive(j, r.Read<ushort>(at)); break;
            case ClrElementType.Int32: Primitive(j, r.Read<int>(at)); break;
            case ClrElementType.UInt32: Primitive(j, r.Read<uint>(at)); break;
            // 64-bit integers as decimal strings: JSON numbers lose digits past 2^53.
            case ClrElementType.Int64: Primitive(j, r.Read<long>(at).ToString()); break;
            case ClrElementType.UInt64: Primitive(j, r.Read<ulong>(at).ToString()); break;
            case ClrElementType.Float: Floating(j, r.Read<float>(at)); break;
            case ClrElementType.Double: Floating(j, r.Read<double>(at)); break;
            case ClrElementType.NativeInt or ClrElementType.NativeUInt or ClrElementType.Pointer or ClrElementType.FunctionPointer:
                Primitive(j, Hex.Of(r.ReadPointer(at)));
                break;
            case ClrElementType.Struct:
                j.WriteString("kind", "struct");
                j.WriteString("type", type?.Name ?? "<unknown type>");
                j.WriteString("text", (type is not null ? DecimalText(r, at, type) : null) ?? type?.Name ?? "struct");
                j.WriteStartArray("fields");
                if (type is not null && depth < MaxStructDepth)
                    foreach (ClrInstanceField f in type.Fields) WriteField(s, f, f.GetAddress(at, interior: true), chars, depth + 1, j);
                j.WriteEndArray();
                break;
            case ClrElementType.String or ClrElementType.Class or ClrElementType.Object or ClrElementType.Array or ClrElementType.SZArray
                or ClrElementType.Var or ClrElementType.MVar or ClrElementType.GenericInstantiation:
                WriteReference(s, r.ReadPointer(at), chars, j);
                break;
            default:
                j.WriteString("kind", "unreadable");
                j.WriteString("text", $"<{et}>");
                break;
        }
        j.WriteEndObject();
    }

    private static void WriteReference(DumpSession s, ulong target, int chars, Utf8JsonWriter j)
    {
        if (target == 0)
        {
            j.WriteString("kind", "null");
            j.WriteString("text", "null");
            return;
        }
        ClrObject o = s.Heap.GetObject(target);
        j.WriteString("address", Hex.Of(target));
        j.WriteString("type", o.Type?.Name ?? "<unknown type>");
        if (o.Type is { IsString: true })
        {
            j.WriteString("kind", "string");
            WriteStringContents(s, target, chars, j, null);
        }
        else
        {
            j.WriteString("kind", "reference");
            j.WriteString("text", $"{o.Type?.Name ?? "<unknown type>"} @ {Hex.Of(target)}");
        }
    }

    /// <summary>A string object's text, first `chars` UTF-16 units: value, length (the whole string's), truncated, text (quoted).</summary>
    private static void WriteStringContents(DumpSession s, ulong address, int chars, Utf8JsonWriter j, string? property)
    {
        IDataReader r = s.Target.DataReader;
        int ptr = r.PointerSize;
        int length = r.Read<int>(address + (ulong)ptr);
        int take = Math.Clamp(length, 0, chars);
        var bytes = new byte[take * 2];
        int got = take == 0 ? 0 : r.Read(address + (ulong)ptr + 4, bytes);
        string value = Encoding.Unicode.GetString(bytes, 0, got & ~1);
        if (property is not null) j.WriteStartObject(property);
        j.WriteString("value", value);
        j.WriteNumber("length", length);
        j.WriteBoolean("truncated", value.Length < length);
        if (property is null) j.WriteString("text", "\"" + value + (value.Length < length ? "…" : "") + "\"");
        else j.WriteEndObject();
    }

    /// <summary>
    /// A System.Decimal's value as text ("-1234.5678"), from its fields by name (.NET Core:
    /// _flags, _hi32, _lo64; .NET Framework: flags, hi, lo, mid); null for another struct.
    /// </summary>
    private static string? DecimalText(IDataReader r, ulong at, ClrType type)
    {
        if (type.Name != "System.Decimal") return null;
        ulong Addr(string name) => type.GetFieldByName(name) is { } f ? at + (ulong)f.Offset : ulong.MaxValue;
        ulong flagsAt = Addr("_flags"), hiAt = Addr("_hi32"), loAt = Addr("_lo64");
        int flags, hi, lo, mid;
        if (flagsAt != ulong.MaxValue && hiAt != ulong.MaxValue && loAt != ulong.MaxValue)
        {
            ulong lo64 = r.Read<ulong>(loAt);
            (flags, hi, lo, mid) = (r.Read<int>(flagsAt), r.Read<int>(hiAt), (int)lo64, (int)(lo64 >> 32));
        }
        else if (Addr("flags") is var f0 && Addr("hi") is var h0 && Addr("lo") is var l0 && Addr("mid") is var m0 && f0 != ulong.MaxValue && h0 != ulong.MaxValue && l0 != ulong.MaxValue && m0 != ulong.MaxValue)
        {
            (flags, hi, lo, mid) = (r.Read<int>(f0), r.Read<int>(h0), r.Read<int>(l0), r.Read<int>(m0));
        }
        else return null;
        int scale = (flags >> 16) & 0xff;
        // A decimal's flags use only the sign bit and the scale (0–28); anything else is not one.
        if (scale > 28 || (flags & 0x7F00FFFF) != 0) return null;
        return new decimal(lo, mid, hi, flags < 0, (byte)scale).ToString(System.Globalization.CultureInfo.InvariantCulture);
    }

    private static void Primitive(Utf8JsonWriter j, object v)
    {
        j.WriteString("kind", "primitive");
        switch (v)
        {
            case bool b: j.WriteBoolean("value", b); j.WriteString("text", b ? "true" : "false"); break;
            case string str: j.WriteString("value", str); j.WriteString("text", str); break;
            case sbyte or byte or short or ushort or int:
                j.WriteNumber("value", Convert.ToInt32(v));
                j.WriteString("text", v.ToString());
                break;
            case uint u: j.WriteNumber("value", u); j.WriteString("text", u.ToString()); break;
        }
    }

    private static void Floating(Utf8JsonWriter j, double d)
    {
        j.WriteString("kind", "primitive");
        string text = d.ToString("R", System.Globalization.CultureInfo.InvariantCulture);
        if (double.IsFinite(d)) j.WriteNumber("value", d);
        else j.WriteString("value", text); // NaN and infinities have no JSON number
        j.WriteString("text", text);
    }

    private static Int128 ReadInteger(IDataReader r, ulong at, ClrElementType et) => et switch
    {
        ClrElementType.Int8 => r.Read<sbyte>(at),
        ClrElementType.UInt8 or ClrElementType.Boolean => r.Read<byte>(at),
        ClrElementType.Int16 => r.Read<short>(at),
        ClrElementType.UInt16 or ClrElementType.Char => r.Read<ushort>(at),
        ClrElementType.UInt32 => r.Read<uint>(at),
        ClrElementType.Int64 => r.Read<long>(at),
        ClrElementType.UInt64 => r.Read<ulong>(at),
        _ => r.Read<int>(at),
    };

    /// <summary>An enum constant as ClrMD boxes it (its underlying type) → Int128, sign kept per type.</summary>
    private static Int128 ToInt128(object v) => v switch
    {
        ulong u => u,
        long l => l,
        uint u => u,
        char c => c,
        bool b => b ? 1 : 0,
        _ => Convert.ToInt64(v),
    };

    private static string GenerationName(Generation? g) => g switch
    {
        Generation.Generation0 => "gen0",
        Generation.Generation1 => "gen1",
        Generation.Generation2 => "gen2",
        Generation.Large => "loh",
        Generation.Pinned => "poh",
        Generation.Frozen => "frozen",
        _ => "unknown",
    };
}
