using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// The contents of System.String objects, once per distinct value (STRING_VALUE records, see
/// shared/formats/dump/dump-stream.ts). Each value gets a dense id in first-seen order; the
/// stream carries its first <see cref="MaxChars"/> chars (as a STRING record) and its full length,
/// so a cut-off value is visible as text length &lt; full length.
///
/// Equal ids mean equal contents: a string of at most MaxChars chars is its own key; a longer one
/// is keyed by its length, its first MaxChars chars and a 64-bit FNV-1a hash of all its chars
/// (reading a long string once costs its length; a hash collision between two long strings of the
/// same length and prefix is the only way two different values could share an id).
///
/// Cost per string object: one memory read of its length and first chars (short strings: one read
/// in all), a dictionary lookup by span (no allocation for a value seen before), and for a new
/// value one string. Memory: one dictionary entry per distinct value, each at most MaxChars chars.
/// </summary>
public sealed class StringValues(IMemoryReader memory, int pointerSize)
{
    public const int MaxChars = 1024;
    /// <summary>Longer strings are hashed up to here only (a 100M-char string is read once, in blocks, at most this far).</summary>
    private const int MaxHashedChars = 64 << 20;
    /// <summary>Chars read together with the length: most strings are shorter, so one read does.</summary>
    private const int HeadChars = 60;

    private readonly Dictionary<string, uint> _short = new(StringComparer.Ordinal);
    private readonly Dictionary<(string Text, int Length, ulong Hash), uint> _long = new();
    private readonly byte[] _head = new byte[4 + 2 * HeadChars];
    private readonly byte[] _text = new byte[2 * MaxChars];
    private readonly byte[] _block = new byte[1 << 16];
    private uint _next;

    /// <summary>
    /// Value id, text and full length of the string at <paramref name="obj"/>, or null when its
    /// memory is not in the dump (a heap dump keeps the GC heap, so that is a damaged dump).
    /// </summary>
    public (uint Id, string Text, int Length, bool IsNew)? Read(ClrObject obj)
    {
        // String layout: method table pointer, int32 length, then UTF-16 chars.
        ulong lengthAt = obj.Address + (ulong)pointerSize;
        int got = memory.Read(lengthAt, _head);
        if (got < 4) return null;
        int length = BinaryPrimitives.ReadInt32LittleEndian(_head);
        if (length < 0) return null;
        int take = Math.Min(length, MaxChars);
        ReadOnlySpan<char> chars;
        if (4 + 2 * take <= got) chars = MemoryMarshal.Cast<byte, char>(_head.AsSpan(4, 2 * take));
        else
        {
            if (memory.Read(lengthAt + 4, _text.AsSpan(0, 2 * take)) < 2 * take) return null;
            chars = MemoryMarshal.Cast<byte, char>(_text.AsSpan(0, 2 * take));
        }
        if (length <= MaxChars)
        {
            var lookup = _short.GetAlternateLookup<ReadOnlySpan<char>>();
            if (lookup.TryGetValue(chars, out uint known)) return (known, "", length, false);
            string text = new(chars);
            uint id = _next++;
            _short.Add(text, id);
            return (id, text, length, true);
        }
        string prefix = new(chars);
        var key = (prefix, length, Hash(lengthAt + 4, length));
        if (_long.TryGetValue(key, out uint seen)) return (seen, prefix, length, false);
        uint longId = _next++;
        _long.Add(key, longId);
        return (longId, prefix, length, true);
    }

    private ulong Hash(ulong charsAt, int length)
    {
        ulong h = 14695981039346656037UL;
        long bytes = Math.Min((long)length, MaxHashedChars) * 2;
        for (long at = 0; at < bytes;)
        {
            int n = (int)Math.Min(_block.Length, bytes - at);
            int got = memory.Read(charsAt + (ulong)at, _block.AsSpan(0, n));
            if (got <= 0) break;
            for (int i = 0; i < got; i++) h = (h ^ _block[i]) * 1099511628211UL;
            at += got;
        }
        return h;
    }
}
