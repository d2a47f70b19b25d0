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
/// same length and prefix is the only way two different values could share an id). Memory: one
/// dictionary entry per distinct value, each at most MaxChars chars.
/// </summary>
public sealed class StringValues(IMemoryReader memory, int pointerSize)
{
    public const int MaxChars = 1024;
    /// <summary>Longer strings are hashed up to here only (a 100M-char string is read once, in blocks, at most this far).</summary>
    private const int MaxHashedChars = 64 << 20;

    private readonly Dictionary<(string Text, int Length, ulong Hash), uint> _ids = new();
    private readonly byte[] _block = new byte[1 << 16];

    /// <summary>
    /// Value id, text and full length of the string at <paramref name="obj"/>, or null when its
    /// memory is not in the dump (a heap dump keeps the GC heap, so that is a damaged dump).
    /// </summary>
    public (uint Id, string Text, int Length, bool IsNew)? Read(ClrObject obj)
    {
        // String layout: method table pointer, int32 length, then UTF-16 chars.
        ulong lengthAt = obj.Address + (ulong)pointerSize;
        if (!memory.Read(lengthAt, out int length) || length < 0) return null;
        string? text = obj.AsString(Math.Min(length, MaxChars));
        if (text is null) return null;
        ulong hash = length > MaxChars ? Hash(lengthAt + 4, length) : 0;
        var key = (text, length, hash);
        if (_ids.TryGetValue(key, out uint id)) return (id, text, length, false);
        id = (uint)_ids.Count;
        _ids.Add(key, id);
        return (id, text, length, true);
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
