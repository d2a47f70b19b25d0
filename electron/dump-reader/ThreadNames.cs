using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// Thread names: ClrMD's ClrThread has none; the name lives in the managed System.Threading.Thread
/// object's `_name` field (.NET Core/5+; `m_Name` on .NET Framework), keyed by its
/// `_managedThreadId` (`m_ManagedThreadId`). The runtime keeps a handle to each started thread's
/// managed object, so the handle table finds them without walking the heap (a few hundred handles,
/// not millions of objects). A thread whose object the dump lacks, or that was never named, has none.
/// </summary>
public static class ThreadNames
{
    /// <summary>Managed thread id → the address of its System.Threading.Thread object and its name (null when unnamed).</summary>
    public static Dictionary<int, (ulong Address, string? Name)> Read(ClrRuntime runtime)
    {
        var names = new Dictionary<int, (ulong, string?)>();
        var seen = new HashSet<ulong>();
        foreach (ClrHandle h in runtime.EnumerateHandles())
        {
            ClrObject o = h.Object;
            if (o.Address == 0 || o.Type?.Name != "System.Threading.Thread" || !seen.Add(o.Address)) continue;
            ClrInstanceField? idField = o.Type.GetFieldByName("_managedThreadId") ?? o.Type.GetFieldByName("m_ManagedThreadId");
            ClrInstanceField? nameField = o.Type.GetFieldByName("_name") ?? o.Type.GetFieldByName("m_Name");
            if (idField is null || nameField is null) continue;
            int id = idField.Read<int>(o.Address, interior: false);
            string? name = nameField.ReadString(o.Address, interior: false);
            names.TryAdd(id, (o.Address, name));
        }
        return names;
    }

    /// <summary>
    /// A name as it goes between the quotes of a stack-root label: escaped as in a JSON string
    /// (`\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`, other C0 controls as `\u00XX`, like JSON.stringify),
    /// and further DEL, C1 controls and lone surrogates as `\uXXXX` (a label is shown, and a lone
    /// surrogate would not survive the stream's UTF-8). Only the label: the threads query keeps the raw name.
    /// </summary>
    public static string EscapeForLabel(string name)
    {
        int i = 0;
        while (i < name.Length && !NeedsEscape(name, i)) i++;
        if (i == name.Length) return name; // the common case: nothing to escape, no new string
        var b = new System.Text.StringBuilder(name.Length + 8);
        b.Append(name, 0, i);
        for (; i < name.Length; i++)
        {
            char c = name[i];
            if (!NeedsEscape(name, i)) { b.Append(c); continue; }
            switch (c)
            {
                case '"': b.Append("\\\""); break;
                case '\\': b.Append("\\\\"); break;
                case '\n': b.Append("\\n"); break;
                case '\r': b.Append("\\r"); break;
                case '\t': b.Append("\\t"); break;
                case '\b': b.Append("\\b"); break;
                case '\f': b.Append("\\f"); break;
                default: b.Append("\\u").Append(((int)c).ToString("x4")); break;
            }
        }
        return b.ToString();
    }

    private static bool NeedsEscape(string s, int i)
    {
        char c = s[i];
        if (c == '"' || c == '\\' || c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
        if (char.IsHighSurrogate(c)) return i + 1 >= s.Length || !char.IsLowSurrogate(s[i + 1]);
        if (char.IsLowSurrogate(c)) return i == 0 || !char.IsHighSurrogate(s[i - 1]);
        return false;
    }
}
