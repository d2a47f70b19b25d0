using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// Walks one dump: runtime info, then every object (segments in address order, so the decoder
/// resolves references by binary search without a hash map), then roots by kind, then dependent
/// handles. Types get dense ids in first-seen order.
/// </summary>
public static class HeapWalker
{
    // Root kinds of the stream (keep in step with RootKind in shared/formats/dump/dump-stream.ts).
    private const byte Stack = 0, Static = 1, ThreadStatic = 2, StrongHandle = 3, PinnedHandle = 4, AsyncPinnedHandle = 5,
        RefCountedHandle = 6, SizedRefHandle = 7, WeakHandle = 8, FinalizerQueue = 9, OtherHandle = 10;

    public static void Walk(string path, HeapStreamWriter w, bool histogram = false)
    {
        if (!File.Exists(path)) throw new DumpError("io/not-found", $"{path} does not exist");
        using DataTarget target = LoadDump(path);
        if (target.ClrVersions.Length == 0)
            throw new DumpError("dump/no-clr", $"{Path.GetFileName(path)} is a dump of a process without the .NET runtime (CoreCLR) loaded");
        ClrInfo clr = target.ClrVersions[0];
        // The same DAC choice as the queries (DumpSession): local files only, so the walk and the
        // queries always load the same DAC file and no open waits on a symbol server.
        (ClrRuntime runtime, DacChoice dac) = DacChoice.Create(clr);
        ClrHeap heap = runtime.Heap;

        // Linux heap dumps may not carry the version resource (ClrMD says 0.0); the runtime's directory names it.
        string version = clr.Version.Major != 0 ? clr.Version.ToString() : Path.GetFileName(Path.GetDirectoryName(clr.ModuleInfo.FileName)) ?? "unknown";
        w.Info("clrVersion", version);
        w.Info("clrFlavor", clr.Flavor.ToString());
        w.Info("pointerSize", target.DataReader.PointerSize.ToString());
        w.Info("architecture", target.DataReader.Architecture.ToString());
        w.Info("platform", target.DataReader.TargetPlatform.ToString());
        w.Info("processId", target.DataReader.ProcessId.ToString());
        w.Info("serverGC", heap.IsServer ? "true" : "false");
        w.Info("dacFile", dac.File);
        w.Info("dacSource", dac.Source);
        w.Info("dacMatchedBy", dac.MatchedBy);

        var typeIds = new Dictionary<ulong, uint>();
        uint TypeId(ClrType? t)
        {
            ulong mt = t?.MethodTable ?? 0;
            if (typeIds.TryGetValue(mt, out uint id)) return id;
            id = (uint)typeIds.Count;
            typeIds.Add(mt, id);
            w.Type(id, t?.Name ?? "<unknown type>", t?.Module?.Name);
            return id;
        }

        var refs = new List<(ulong Target, uint Field)>();
        var fieldIds = new FieldIds(w);
        var references = new ObjectReferences(target.DataReader, fieldIds);
        var objects = new SegmentObjects(heap, target.DataReader);
        // HEAPSCOPE_DUMP_READER_CLRMD_REFS=1: ClrMD's own reference enumeration instead, the oracle
        // the tests compare the stream with (test/integration/dump-walk-oracle.test.ts).
        bool clrmdRefs = Environment.GetEnvironmentVariable("HEAPSCOPE_DUMP_READER_CLRMD_REFS") == "1";
        var strings = new StringValues(target.DataReader, target.DataReader.PointerSize);
        var fills = new ArrayFacts(target.DataReader, target.DataReader.PointerSize);
        ClrSegment[] segments = heap.Segments.OrderBy(s => s.Start).ToArray();
        // Progress: a PROGRESS record each time another ~1% of the segments' object bytes is walked.
        ulong total = 0, walked = 0, small = 0;
        foreach (ClrSegment seg in segments)
        {
            total += seg.ObjectRange.Length;
            if (seg.Kind is not (GCSegmentKind.Large or GCSegmentKind.Pinned)) small += seg.ObjectRange.Length;
        }
        // Before the walk: the reader estimates from them whether the graph can fit in memory and
        // refuses a dump that cannot before the helper spends minutes walking it (dump-memory.ts).
        // Large and pinned object heaps are counted apart: few objects in many bytes.
        w.Info("heapBytes", total.ToString());
        w.Info("smallObjectHeapBytes", small.ToString());
        if (histogram) WriteTypeHistogram(segments, heap, target.DataReader, w, TypeId);
        ulong step = Math.Max(total / 100, 1), nextMark = 0;
        foreach (ClrSegment seg in segments)
        {
            ulong segStart = seg.ObjectRange.Start;
            foreach ((ClrObject obj, ulong size) in objects.Enumerate(seg)) // as seg.EnumerateObjects() (SegmentObjects.cs)
            {
                if (walked + (obj.Address - segStart) >= nextMark)
                {
                    w.Progress(walked + (obj.Address - segStart), total);
                    nextMark = walked + (obj.Address - segStart) + step;
                }
                ClrType? objType = obj.Type;
                if (objType is null || objType.IsFree) continue;
                refs.Clear();
                if (clrmdRefs)
                {
                    foreach (ClrReference r in obj.EnumerateReferencesWithFields(carefully: false, considerDependantHandles: false))
                        refs.Add((r.Object.Address, r.IsField ? fieldIds.Id(r) : HeapStreamWriter.None));
                }
                else references.Collect(obj, objType, size, refs); // the same references, cheaper (ObjectReferences.cs)
                uint type = TypeId(objType);
                // A new value's text goes out (a STRING record) before the OBJECT record starts:
                // nothing may come between an OBJECT header and its references.
                var value = objType.IsString ? strings.Read(obj) : null;
                uint text = value is { IsNew: true } v ? w.WriteString(v.Text) : HeapStreamWriter.None;
                w.Object(obj.Address, type, size, GenerationCode(seg.GetGeneration(obj.Address)), (uint)refs.Count);
                foreach (var (t, f) in refs) w.Reference(t, f);
                if (value is { } s) w.StringValue(obj.Address, s.Id, text, (uint)s.Length);
                fills.Write(obj, w); // ARRAY_FILL / COLLECTION (ArrayFacts.cs, CollectionFacts.cs)
            }
            walked += seg.ObjectRange.Length;
        }
        w.Progress(total, total);

        // Managed thread names for the stack roots' thread labels (a walk of the handle table, not the heap).
        Dictionary<int, (ulong Address, string? Name)> threadNames = ThreadNames.Read(runtime);
        foreach (ClrRoot root in heap.EnumerateRoots())
        {
            if (root.Object.Address == 0) continue;
            if (root.RootKind == ClrRootKind.Stack)
            {
                ClrStackFrame? frame = (root as ClrStackRoot)?.StackFrame;
                ClrThread? thread = frame?.Thread;
                string group = thread is null ? "[thread ?]" : ThreadLabel(thread.ManagedThreadId, thread.OSThreadId, threadNames);
                string? name = frame?.Method?.Signature ?? frame?.FrameName;
                w.Root(Stack, w.Intern(group), w.Intern(name), root.Object.Address);
            }
            else if (root.RootKind == ClrRootKind.FinalizerQueue)
            {
                w.Root(FinalizerQueue, HeapStreamWriter.None, HeapStreamWriter.None, root.Object.Address);
            }
        }

        WriteStatics(runtime, w);

        foreach (ClrHandle h in runtime.EnumerateHandles())
        {
            if (h.Object.Address == 0) continue;
            if (h.HandleKind == ClrHandleKind.Dependent)
            {
                if (h.Dependent.Address != 0) w.Dependent(h.Object.Address, h.Dependent.Address);
                continue;
            }
            byte kind = h.HandleKind switch
            {
                ClrHandleKind.Strong => StrongHandle,
                ClrHandleKind.Pinned => PinnedHandle,
                ClrHandleKind.AsyncPinned => AsyncPinnedHandle,
                ClrHandleKind.RefCounted => h.IsStrong ? RefCountedHandle : WeakHandle,
                ClrHandleKind.SizedRef => SizedRefHandle,
                ClrHandleKind.WeakShort or ClrHandleKind.WeakLong or ClrHandleKind.WeakWinRT => WeakHandle,
                _ => h.IsStrong ? OtherHandle : WeakHandle,
            };
            w.Root(kind, HeapStreamWriter.None, HeapStreamWriter.None, h.Object.Address);
        }
    }

    /// <summary>
    /// The stats pass: one count and one size per type over every object (free objects skipped),
    /// written as TYPE records (ids assigned here, in first-seen order, which the walk then reuses:
    /// both step through the segments in the same order) and one TYPE_HISTOGRAM record. The app
    /// shows the type table from it while the full walk runs: on a big heap the pass costs a
    /// fraction of the walk (no references, strings or array contents are read) and the first
    /// rows come long before the graph exists. Its cost is that much later an analysis.
    /// </summary>
    private static void WriteTypeHistogram(ClrSegment[] segments, ClrHeap heap, IMemoryReader memory, HeapStreamWriter w, Func<ClrType?, uint> typeId)
    {
        var count = new List<ulong>();
        var bytes = new List<ulong>();
        var objects = new SegmentObjects(heap, memory);
        ClrType? last = null;
        int lastId = -1;
        foreach (ClrSegment seg in segments)
        {
            foreach ((ClrObject obj, ulong size) in objects.Enumerate(seg))
            {
                ClrType? t = obj.Type;
                if (t is null || t.IsFree) continue;
                // Runs of one type are common (arrays of strings, list nodes): skip the lookup.
                int id = ReferenceEquals(t, last) ? lastId : (int)typeId(t);
                last = t;
                lastId = id;
                while (count.Count <= id)
                {
                    count.Add(0);
                    bytes.Add(0);
                }
                count[id]++;
                bytes[id] += size;
            }
        }
        w.TypeHistogram(count, bytes);
    }

    /// <summary>Static and thread-static reference fields of every loaded type, per AppDomain (thread statics per thread).</summary>
    private static void WriteStatics(ClrRuntime runtime, HeapStreamWriter w)
    {
        var seen = new HashSet<ulong>();
        foreach (ClrAppDomain domain in runtime.AppDomains)
        {
            foreach (ClrModule module in domain.Modules)
            {
                foreach ((ulong mt, int _) in module.EnumerateTypeDefToMethodTableMap())
                {
                    if (mt == 0 || !seen.Add(mt)) continue;
                    ClrType? type = runtime.GetTypeByMethodTable(mt);
                    if (type is null) continue;
                    foreach (ClrStaticField f in type.StaticFields)
                    {
                        if (!f.IsObjectReference || !f.IsInitialized(domain)) continue;
                        ClrObject value = f.ReadObject(domain);
                        if (value.Address == 0) continue;
                        w.Root(Static, w.Intern(type.Name ?? "<unknown type>"), w.Intern(f.Name), value.Address);
                    }
                    foreach (ClrThreadStaticField f in type.ThreadStaticFields)
                    {
                        if (!f.IsObjectReference) continue;
                        foreach (ClrThread thread in runtime.Threads)
                        {
                            ClrObject value;
                            try
                            {
                                value = f.ReadObject(thread);
                            }
                            catch (Exception e) when (e is InvalidOperationException or ClrDiagnosticsException or NotSupportedException)
                            {
                                continue; // a thread whose statics block is not in the dump
                            }
                            if (value.Address == 0) continue;
                            w.Root(ThreadStatic, w.Intern(type.Name ?? "<unknown type>"), w.Intern(f.Name), value.Address);
                        }
                    }
                }
            }
        }
    }

    private static byte GenerationCode(Generation g) => g switch
    {
        Generation.Generation0 => 0,
        Generation.Generation1 => 1,
        Generation.Generation2 => 2,
        Generation.Large => 3,
        Generation.Pinned => 4,
        Generation.Frozen => 5,
        _ => 255,
    };

    internal static DataTarget LoadDump(string path)
    {
        try
        {
            // The memory-mapped reader serves the heap walk's many small reads from the mapping
            // instead of a seek + read each: on a 5M-object dump the walk's CPU time fell to about
            // a third (system time nearly all gone), with a byte-identical stream (npm run bench:dump).
            // Mapping fails with OutOfMemoryException on a cut-off header (it maps what the header
            // claims) or without address space: the streaming reader then reads or rejects the dump.
            try
            {
                return DataTarget.LoadDump(path, new DataTargetOptions { UseLockFreeMemoryMapReader = true, FileLocator = new LocalFileLocator() });
            }
            catch (OutOfMemoryException)
            {
                return DataTarget.LoadDump(path, new DataTargetOptions { FileLocator = new LocalFileLocator() });
            }
        }
        catch (Exception e) when (e is InvalidDataException or EndOfStreamException or NotSupportedException or ArgumentException)
        {
            throw new DumpError("dump/corrupt", $"{Path.GetFileName(path)} is not a readable process dump ({e.Message})");
        }
    }

    /// <summary>
    /// A stack root's thread group: `[thread 5 "parked" (OS 0x6103)]`, or without the quoted name
    /// when the thread was never named or its Thread object is not in the dump (the label before names).
    /// The name is escaped JSON-style (ThreadNames.EscapeForLabel): a program may name a thread anything.
    /// </summary>
    internal static string ThreadLabel(int managedId, uint osId, Dictionary<int, (ulong Address, string? Name)> names) =>
        names.TryGetValue(managedId, out var t) && t.Name is { } name
            ? $"[thread {managedId} \"{ThreadNames.EscapeForLabel(name)}\" (OS 0x{osId:x})]"
            : $"[thread {managedId} (OS 0x{osId:x})]";

    internal static string DefaultDacName() =>
        OperatingSystem.IsWindows() ? "mscordaccore.dll" : OperatingSystem.IsMacOS() ? "libmscordaccore.dylib" : "libmscordaccore.so";
}
