using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// Which DAC file the queries' runtime was made from, and why it fits the dump's runtime.
/// ClrMD's ClrInfo.CreateRuntime() picks a DAC itself and does not say which file it loaded, so
/// the session walks ClrMD's own candidate list in ClrMD's order (ClrInfo.DebuggingLibraries: DAC
/// entries for this OS and architecture; a rooted path is a file ClrMD matched on this machine, a
/// bare name is looked up through the DataTarget's file locator, as ClrMD does) and hands each file
/// to CreateRuntime(path, ignoreMismatch: true) (what ClrMD does with its candidates). The first
/// file that loads is the one reported. Last comes the runtime directory the dump names
/// (for dumps without a version resource), then the same runtime version installed under a dotnet
/// root on this machine. Nothing is downloaded: the DataTarget's locator is LocalFileLocator (the
/// heap walk and the queries both come here, so they load the same file). Costs one extra
/// file read (the DAC's version, the local runtime's build id) per opened dump.
/// </summary>
public sealed class DacChoice
{
    /// <summary>The DAC file the runtime was created from.</summary>
    public required string File { get; init; }

    /// <summary>"candidate" (ClrMD's list, a file on disk), "locator" (a file on disk found by the local-only file locator), "runtime-directory" (beside the dump's runtime library), "installed-runtime" (the same version installed under a dotnet root here).</summary>
    public required string Source { get; init; }

    /// <summary>Index of the entry in ClrMD's DAC candidate list; -1 for the runtime-directory fallback.</summary>
    public required int Candidate { get; init; }

    /// <summary>The DAC file's own version ("10.0.1.0"), null when the file carries none.</summary>
    public string? DacVersion { get; init; }

    /// <summary>The dump's runtime version as ClrMD reads it (0.0.0.0 when the dump has no version resource).</summary>
    public required string RuntimeVersion { get; init; }

    /// <summary>The build id of the runtime library in the dump (ELF/Mach-O), hex; null when the dump has none.</summary>
    public string? RuntimeBuildId { get; init; }

    /// <summary>The build id of the runtime library beside the DAC on this machine, hex; null when none could be read.</summary>
    public string? LocalRuntimeBuildId { get; init; }

    /// <summary>
    /// What ties the DAC to the dump's runtime: "build-id" (the runtime library beside the DAC has the
    /// dump's build id), "version" (the DAC's file version equals the dump's runtime version), or
    /// "none" (neither could be checked; the DAC was loaded anyway and answered).
    /// </summary>
    public string MatchedBy =>
        RuntimeBuildId is not null && RuntimeBuildId == LocalRuntimeBuildId ? "build-id"
        : DacVersion is not null && DacVersion == RuntimeVersion ? "version"
        : "none";

    public static (ClrRuntime Runtime, DacChoice Choice) Create(ClrInfo clr)
    {
        OSPlatform here = OperatingSystem.IsWindows() ? OSPlatform.Windows : OperatingSystem.IsMacOS() ? OSPlatform.OSX : OSPlatform.Linux;
        Architecture arch = RuntimeInformation.ProcessArchitecture;
        Exception? first = null;
        int index = -1;
        foreach (DebugLibraryInfo dac in clr.DebuggingLibraries)
        {
            if (dac.Kind != DebugLibraryKind.Dac) continue;
            index++;
            if (dac.Platform != here || dac.TargetArchitecture != arch) continue;
            string? path = null;
            string source = "candidate";
            if (Path.IsPathRooted(dac.FileName)) path = dac.FileName;
            else if (clr.DataTarget.FileLocator is IFileLocator locator && dac.Platform == OSPlatform.Windows)
            {
                source = "locator";
                path = !dac.IndexBuildId.IsDefaultOrEmpty
                    ? locator.FindPEImage(dac.FileName, SymbolProperties.Coreclr, dac.IndexBuildId, clr.DataTarget.DataReader.TargetPlatform, checkProperties: false)
                    : dac.IndexTimeStamp != 0 && dac.IndexFileSize != 0
                        ? locator.FindPEImage(dac.FileName, dac.IndexTimeStamp, dac.IndexFileSize, checkProperties: false)
                        : null;
            }
            if (path is null || !System.IO.File.Exists(path)) continue;
            try
            {
                return (clr.CreateRuntime(path, ignoreMismatch: true), Describe(clr, path, source, index));
            }
            catch (Exception e) when (e is FileNotFoundException or DllNotFoundException or ClrDiagnosticsException or InvalidOperationException)
            {
                first ??= e;
            }
        }
        // ClrMD finds no DAC when the dump lacks the runtime's version resource (Linux heap dumps):
        // the DAC beside the libcoreclr the dump names is the matching one (same directory = same build).
        string dacName = Path.GetFileName(clr.DebuggingLibraries.FirstOrDefault()?.FileName ?? HeapWalker.DefaultDacName());
        string? runtimeDir = Path.GetDirectoryName(clr.ModuleInfo.FileName);
        string? local = runtimeDir is null ? null : Path.Combine(runtimeDir, dacName);
        if (local is not null && System.IO.File.Exists(local))
        {
            try
            {
                return (clr.CreateRuntime(local, ignoreMismatch: true), Describe(clr, local, "runtime-directory", -1));
            }
            catch (Exception e) when (e is FileNotFoundException or DllNotFoundException or ClrDiagnosticsException or InvalidOperationException)
            {
                throw new DumpError("dump/corrupt",
                    $"the .NET runtime data in this dump cannot be read; the dump is truncated, damaged or was not written by a .NET dump tool ({e.Message})");
            }
        }
        // The same runtime version installed elsewhere on this machine (a dump from another machine or
        // install location): shared/Microsoft.NETCore.App/<version>/ under the usual dotnet roots.
        foreach (string installed in InstalledRuntimeDacs(clr, dacName))
        {
            try
            {
                return (clr.CreateRuntime(installed, ignoreMismatch: true), Describe(clr, installed, "installed-runtime", -1));
            }
            catch (Exception e) when (e is FileNotFoundException or DllNotFoundException or ClrDiagnosticsException or InvalidOperationException)
            {
                first ??= e;
            }
        }
        throw new DumpError("dump/dac-missing",
            $"cannot load the runtime's data access component {dacName} for the runtime in {runtimeDir ?? "?"}: {first?.Message ?? "Could not find matching DAC for this runtime."} Install the same .NET runtime version on this machine.",
            dacName);
    }

    /// <summary>DAC files of an installed shared runtime whose directory name is the dump's runtime version (not the dump's own runtime directory).</summary>
    private static IEnumerable<string> InstalledRuntimeDacs(ClrInfo clr, string dacName)
    {
        // Linux heap dumps lack the version resource (0.0): the runtime directory's name is the version.
        string? own = Path.GetDirectoryName(clr.ModuleInfo.FileName);
        string version = clr.Version.Major != 0 ? $"{clr.Version.Major}.{clr.Version.Minor}.{clr.Version.Build}" : Path.GetFileName(own) ?? "";
        if (!System.Text.RegularExpressions.Regex.IsMatch(version, @"^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$")) yield break;
        var roots = new List<string>();
        if (Environment.GetEnvironmentVariable("DOTNET_ROOT") is { Length: > 0 } env) roots.Add(env);
        if (OperatingSystem.IsWindows()) roots.Add(Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.ProgramFiles), "dotnet"));
        else roots.AddRange(["/usr/share/dotnet", "/usr/lib/dotnet", "/usr/local/share/dotnet", "/opt/dotnet"]);
        foreach (string root in roots.Distinct())
        {
            string dir = Path.Combine(root, "shared", "Microsoft.NETCore.App", version);
            string dac = Path.Combine(dir, dacName);
            if (own is not null && string.Equals(Path.GetFullPath(dir), Path.GetFullPath(own), StringComparison.Ordinal)) continue;
            if (System.IO.File.Exists(dac)) yield return dac;
        }
    }

    private static DacChoice Describe(ClrInfo clr, string dac, string source, int candidate)
    {
        string? dacVersion = null;
        try
        {
            dacVersion = FileVersion(dac);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // no version to compare: the build id may still tie them
        }
        var buildId = clr.ModuleInfo.BuildId;
        return new DacChoice
        {
            File = dac,
            Source = source,
            Candidate = candidate,
            DacVersion = dacVersion,
            RuntimeVersion = clr.Version.ToString(),
            RuntimeBuildId = buildId.IsDefaultOrEmpty ? null : Convert.ToHexStringLower(buildId.AsSpan()),
            LocalRuntimeBuildId = LocalBuildId(clr, dac),
        };
    }

    /// <summary>
    /// A library's file version as ClrMD compares it with the runtime's: a PE's version resource, or
    /// on Linux/macOS the "@(#)Version 10.0.1226.42308" string the runtime's builds embed (ClrMD's
    /// reader of it is internal). Reads the whole file once (a DAC is a few MB).
    /// </summary>
    internal static string? FileVersion(string path)
    {
        byte[] bytes = System.IO.File.ReadAllBytes(path);
        if (bytes.Length > 2 && bytes[0] == (byte)'M' && bytes[1] == (byte)'Z')
        {
            var v = System.Diagnostics.FileVersionInfo.GetVersionInfo(path);
            return v.FileMajorPart == 0 && v.FileMinorPart == 0 ? null : $"{v.FileMajorPart}.{v.FileMinorPart}.{v.FileBuildPart}.{v.FilePrivatePart}";
        }
        ReadOnlySpan<byte> marker = "@(#)Version "u8;
        int at = bytes.AsSpan().IndexOf(marker);
        if (at < 0) return null;
        int start = at + marker.Length, end = start;
        while (end < bytes.Length && (bytes[end] == (byte)'.' || (bytes[end] >= (byte)'0' && bytes[end] <= (byte)'9'))) end++;
        return end > start ? System.Text.Encoding.ASCII.GetString(bytes, start, end - start) : null;
    }

    /// <summary>The ELF build id of the runtime library beside the DAC (the dump's runtime file name in the DAC's directory).</summary>
    private static string? LocalBuildId(ClrInfo clr, string dac)
    {
        string? dir = Path.GetDirectoryName(dac);
        if (dir is null) return null;
        string lib = Path.Combine(dir, Path.GetFileName(clr.ModuleInfo.FileName));
        if (!System.IO.File.Exists(lib) || !OperatingSystem.IsLinux()) return null;
        try
        {
            return ElfBuildId.Read(lib);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
