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
}
