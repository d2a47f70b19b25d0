using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// One opened dump for the queries (runtime, threads, object): the DataTarget and the runtime
/// made from its DAC, opened once and kept, so the serve mode answers each request without
/// reloading the DAC. Opening fails with the same coded errors as the heap walk.
/// </summary>
public sealed class DumpSession : IDisposable
{
    public DataTarget Target { get; }
    public ClrInfo Clr { get; }
    public ClrRuntime Runtime { get; }
    public ClrHeap Heap => Runtime.Heap;
    public string Path { get; }

    /// <summary>The DAC file the runtime was made from and what ties it to the dump's runtime.</summary>
    public DacChoice Dac { get; }

    private DumpSession(string path, DataTarget target, ClrInfo clr, ClrRuntime runtime, DacChoice dac)
    {
        Path = path;
        Target = target;
        Clr = clr;
        Runtime = runtime;
        Dac = dac;
    }

    public static DumpSession Open(string path)
    {
        if (!File.Exists(path)) throw new DumpError("io/not-found", $"{path} does not exist");
        DataTarget target = HeapWalker.LoadDump(path);
        try
        {
            if (target.ClrVersions.Length == 0)
                throw new DumpError("dump/no-clr", $"{System.IO.Path.GetFileName(path)} is a dump of a process without the .NET runtime (CoreCLR) loaded");
            ClrInfo clr = target.ClrVersions[0];
            (ClrRuntime runtime, DacChoice dac) = DacChoice.Create(clr);
            return new DumpSession(path, target, clr, runtime, dac);
        }
        catch
        {
            target.Dispose();
            throw;
        }
    }

    /// <summary>The runtime version; Linux heap dumps may not carry the version resource (ClrMD says 0.0), the runtime's directory names it.</summary>
    public string ClrVersion =>
        Clr.Version.Major != 0 ? Clr.Version.ToString() : System.IO.Path.GetFileName(System.IO.Path.GetDirectoryName(Clr.ModuleInfo.FileName)) ?? "unknown";

    public int PointerSize => Target.DataReader.PointerSize;

    /// <summary>Declared field types from module metadata (ObjectQuery), kept across a serve session's queries.</summary>
    public DeclaredTypes DeclaredTypes => declaredTypes ??= new DeclaredTypes(Target.DataReader);
    private DeclaredTypes? declaredTypes;

    public void Dispose()
    {
        Runtime.Dispose();
        Target.Dispose();
    }
}
