using System.Buffers.Binary;

namespace Heapscope.DumpReader;

/// <summary>
/// The GNU build id of an ELF file on disk (the NT_GNU_BUILD_ID note of a PT_NOTE segment), to tell
/// whether the runtime library on this machine is the very build the dump's process ran. ClrMD's own
/// ElfFile reader is internal. Reads the ELF header, the program headers and the note segments only.
/// </summary>
public static class ElfBuildId
{
    private const uint PtNote = 4;
    private const uint NtGnuBuildId = 3;

    /// <summary>The build id as lower-case hex, or null when the file is not a little-endian ELF or has no build id note.</summary>
    public static string? Read(string path)
    {
        using FileStream f = File.OpenRead(path);
        Span<byte> ident = stackalloc byte[64];
        if (f.Read(ident) < 52 || ident[0] != 0x7f || ident[1] != (byte)'E' || ident[2] != (byte)'L' || ident[3] != (byte)'F') return null;
        bool is64 = ident[4] == 2;
        if (ident[5] != 1) return null; // big-endian: not a runtime this reader opens
        ulong phoff = is64 ? BinaryPrimitives.ReadUInt64LittleEndian(ident[32..]) : BinaryPrimitives.ReadUInt32LittleEndian(ident[28..]);
        int phentsize = BinaryPrimitives.ReadUInt16LittleEndian(ident[is64 ? 54.. : 42..]);
        int phnum = BinaryPrimitives.ReadUInt16LittleEndian(ident[is64 ? 56.. : 44..]);
        if (phentsize < (is64 ? 56 : 32) || phnum > 4096) return null;
        byte[] ph = new byte[phentsize];
        for (int i = 0; i < phnum; i++)
        {
            f.Position = (long)phoff + (long)i * phentsize;
            if (f.Read(ph) != phentsize) return null;
            if (BinaryPrimitives.ReadUInt32LittleEndian(ph) != PtNote) continue;
            ulong offset = is64 ? BinaryPrimitives.ReadUInt64LittleEndian(ph.AsSpan(8)) : BinaryPrimitives.ReadUInt32LittleEndian(ph.AsSpan(4));
            ulong size = is64 ? BinaryPrimitives.ReadUInt64LittleEndian(ph.AsSpan(32)) : BinaryPrimitives.ReadUInt32LittleEndian(ph.AsSpan(16));
            if (size > 1 << 20) continue;
            byte[] notes = new byte[size];
            f.Position = (long)offset;
            if (f.Read(notes) != notes.Length) return null;
            for (int at = 0; at + 12 <= notes.Length;)
            {
                int nameSize = (int)BinaryPrimitives.ReadUInt32LittleEndian(notes.AsSpan(at));
                int descSize = (int)BinaryPrimitives.ReadUInt32LittleEndian(notes.AsSpan(at + 4));
                uint type = BinaryPrimitives.ReadUInt32LittleEndian(notes.AsSpan(at + 8));
                int name = at + 12, desc = name + Align4(nameSize), next = desc + Align4(descSize);
                if (nameSize < 0 || descSize < 0 || next > notes.Length || next <= at) break;
                if (type == NtGnuBuildId && nameSize == 4 && notes.AsSpan(name, 3).SequenceEqual("GNU"u8))
                    return Convert.ToHexStringLower(notes.AsSpan(desc, descSize));
                at = next;
            }
        }
        return null;
    }

    private static int Align4(int n) => (n + 3) & ~3;
}
