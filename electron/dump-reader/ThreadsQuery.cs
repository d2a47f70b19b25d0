using System.Text.Json;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// `threads`: every managed thread (OS id, managed id, flags, current exception) with its managed
/// stack, and for each frame the objects it roots (the GC's stack roots, matched to the frame by
/// stack pointer). Roots that match no listed frame go to the thread's otherRoots.
/// JSON shape: README (heapscope threads) and shared/formats/dump/dump-queries.ts (DumpThread).
/// </summary>
public static class ThreadsQuery
{
    /// <summary>Frames listed per thread; deeper stacks are cut (framesTruncated says so).</summary>
    private const int MaxFrames = 500;

    public static void Write(DumpSession s, Utf8JsonWriter j)
    {
        j.WriteStartObject();
        Dictionary<int, (ulong Address, string? Name)> names = ThreadNames.Read(s.Runtime);
        j.WriteStartArray("threads");
        foreach (ClrThread t in s.Runtime.Threads) WriteThread(s, t, names.TryGetValue(t.ManagedThreadId, out var n) ? n : null, j);
        j.WriteEndArray();
        j.WriteEndObject();
    }

    private static void WriteThread(DumpSession s, ClrThread t, (ulong Address, string? Name)? managed, Utf8JsonWriter j)
    {
        j.WriteStartObject();
        j.WriteNumber("osThreadId", t.OSThreadId);
        j.WriteNumber("managedThreadId", t.ManagedThreadId);
        // The managed Thread object's _name (ThreadNames); null when unnamed or its object is not found.
        if (managed?.Name is string name) j.WriteString("name", name);
        else j.WriteNull("name");
        if (managed is { } mo) j.WriteString("managedObject", Hex.Of(mo.Address));
        else j.WriteNull("managedObject");
        j.WriteString("address", Hex.Of(t.Address));
        j.WriteBoolean("alive", t.IsAlive);
        j.WriteBoolean("background", (t.State & ClrThreadState.TS_Background) != 0);
        j.WriteBoolean("gc", t.IsGc);
        j.WriteBoolean("finalizer", t.IsFinalizer);
        j.WriteBoolean("threadPool", (t.State & (ClrThreadState.TS_TPWorkerThread | ClrThreadState.TS_CompletionPortThread)) != 0);
        j.WriteString("gcMode", t.GCMode.ToString());
        j.WriteStartArray("state");
        foreach (ClrThreadState f in Enum.GetValues<ClrThreadState>())
            if ((t.State & f) != 0) j.WriteStringValue(f.ToString());
        j.WriteEndArray();

        ClrException? ex = null;
        try
        {
            ex = t.CurrentException;
        }
        catch (Exception e) when (e is InvalidOperationException or ClrDiagnosticsException)
        {
            // the thread's exception object is not in the dump
        }
        if (ex is null) j.WriteNull("exception");
        else
        {
            j.WriteStartObject("exception");
            j.WriteString("type", ex.Type?.Name ?? "<unknown type>");
            if (ex.Message is string m) j.WriteString("message", m);
            else j.WriteNull("message");
            j.WriteString("address", Hex.Of(ex.Address));
            j.WriteNumber("hresult", ex.HResult);
            j.WriteEndObject();
        }

        if (!t.IsAlive)
        {
            j.WriteStartArray("frames");
            j.WriteEndArray();
            j.WriteStartArray("otherRoots");
            j.WriteEndArray();
            j.WriteBoolean("framesTruncated", false);
            j.WriteEndObject();
            return;
        }

        var frames = t.EnumerateStackTrace(includeContext: false).Take(MaxFrames + 1).ToList();
        bool truncated = frames.Count > MaxFrames;
        if (truncated) frames.RemoveAt(MaxFrames);
        // Stack roots by frame: a frame is named by its stack and instruction pointer.
        var byFrame = new Dictionary<(ulong, ulong), List<ClrStackRoot>>();
        var other = new List<ClrStackRoot>();
        var listed = new HashSet<(ulong, ulong)>(frames.Select(f => (f.StackPointer, f.InstructionPointer)));
        foreach (ClrStackRoot r in t.EnumerateStackRoots())
        {
            if (r.Object.Address == 0) continue;
            var key = r.StackFrame is { } f ? (f.StackPointer, f.InstructionPointer) : (0UL, 0UL);
            if (!listed.Contains(key)) other.Add(r);
            else
            {
                if (!byFrame.TryGetValue(key, out var list)) byFrame[key] = list = new List<ClrStackRoot>();
                list.Add(r);
            }
        }

        j.WriteStartArray("frames");
        foreach (ClrStackFrame f in frames)
        {
            j.WriteStartObject();
            j.WriteString("kind", f.Kind switch { ClrStackFrameKind.ManagedMethod => "managed", ClrStackFrameKind.Runtime => "runtime", _ => "unknown" });
            ClrMethod? method = f.Method;
            string? sig = method?.Signature ?? (method is null ? null : $"{method.Type?.Name}.{method.Name}");
            if (sig is not null) j.WriteString("method", sig);
            else j.WriteNull("method");
            if (f.FrameName is string fn) j.WriteString("frameName", fn);
            else j.WriteNull("frameName");
            string? module = method?.Type?.Module?.Name;
            if (module is not null) j.WriteString("module", System.IO.Path.GetFileName(module));
            else j.WriteNull("module");
            j.WriteString("instructionPointer", Hex.Of(f.InstructionPointer));
            j.WriteString("stackPointer", Hex.Of(f.StackPointer));
            j.WriteStartArray("roots");
            if (byFrame.TryGetValue((f.StackPointer, f.InstructionPointer), out var roots))
                foreach (ClrStackRoot r in roots) WriteRoot(r, j);
            j.WriteEndArray();
            j.WriteEndObject();
        }
        j.WriteEndArray();
        j.WriteStartArray("otherRoots");
        foreach (ClrStackRoot r in other) WriteRoot(r, j);
        j.WriteEndArray();
        j.WriteBoolean("framesTruncated", truncated);
        j.WriteEndObject();
    }

    private static void WriteRoot(ClrStackRoot r, Utf8JsonWriter j)
    {
        j.WriteStartObject();
        j.WriteString("address", Hex.Of(r.Object.Address));
        j.WriteString("type", r.Object.Type?.Name ?? "<unknown type>");
        j.WriteBoolean("interior", r.IsInterior);
        j.WriteBoolean("pinned", r.IsPinned);
        if (r.RegisterName is string reg && reg.Length > 0) j.WriteString("register", reg);
        j.WriteEndObject();
    }
}
