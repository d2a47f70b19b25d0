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

    private DumpSession(string path, DataTarget target, ClrInfo clr, ClrRuntime runtime)
    {
        Path = path;
        Target = target;
        Clr = clr;
        Runtime = runtime;
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
            return new DumpSession(path, target, clr, HeapWalker.CreateRuntime(clr));
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

    /// <summary>
    /// The DAC file this machine has for the dump's runtime: the one ClrMD lists and finds on disk,
    /// else the one beside the runtime's own library (HeapWalker.CreateRuntime's fallback).
    /// ClrMD does not report which file it loaded, so this is the file it would load first.
    /// </summary>
    public string? DacFile
    {
        get
        {
            foreach (DebugLibraryInfo lib in Clr.DebuggingLibraries)
                if (lib.Kind == DebugLibraryKind.Dac && System.IO.Path.IsPathRooted(lib.FileName) && File.Exists(lib.FileName)) return lib.FileName;
            string? dir = System.IO.Path.GetDirectoryName(Clr.ModuleInfo.FileName);
            string name = System.IO.Path.GetFileName(Clr.DebuggingLibraries.FirstOrDefault(l => l.Kind == DebugLibraryKind.Dac)?.FileName ?? HeapWalker.DefaultDacName());
            string? local = dir is null ? null : System.IO.Path.Combine(dir, name);
            return local is not null && File.Exists(local) ? local : null;
        }
    }

    public int PointerSize => Target.DataReader.PointerSize;

    public void Dispose()
    {
        Runtime.Dispose();
        Target.Dispose();
    }
}
