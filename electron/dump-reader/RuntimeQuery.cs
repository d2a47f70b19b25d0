using System.Text.Json;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// `runtime`: the dump's CLR (version, flavor, the DAC file, pointer size, GC mode), its
/// AppDomains and its modules. JSON shape: README (heapscope runtime) and
/// shared/formats/dump/dump-queries.ts (DumpRuntimeInfo).
/// </summary>
public static class RuntimeQuery
{
    public static void Write(DumpSession s, Utf8JsonWriter j)
    {
        j.WriteStartObject();
        j.WriteString("clrVersion", s.ClrVersion);
        j.WriteString("flavor", s.Clr.Flavor.ToString());
        j.WriteString("runtimeModule", s.Clr.ModuleInfo.FileName);
        // The session's runtime is made from a DAC (opening fails otherwise), so dacFile is never null here.
        j.WriteString("dacFile", s.Dac.File);
        WriteDac(s, j);
        j.WriteNumber("pointerSize", s.PointerSize);
        j.WriteString("architecture", s.Target.DataReader.Architecture.ToString());
        j.WriteString("platform", s.Target.DataReader.TargetPlatform.ToString());
        j.WriteNumber("processId", s.Target.DataReader.ProcessId);
        j.WriteBoolean("serverGC", s.Heap.IsServer);
        j.WriteNumber("heapCount", s.Heap.SubHeaps.Length);
        j.WriteNumber("threadCount", s.Runtime.Threads.Length);

        j.WriteStartArray("appDomains");
        if (s.Runtime.SystemDomain is ClrAppDomain sys) WriteDomain(j, sys, "system");
        if (s.Runtime.SharedDomain is ClrAppDomain shared) WriteDomain(j, shared, "shared");
        foreach (ClrAppDomain d in s.Runtime.AppDomains) WriteDomain(j, d, "app");
        j.WriteEndArray();

        // A module appears once per AppDomain that loaded it (one domain on .NET Core).
        j.WriteStartArray("modules");
        var seen = new HashSet<ulong>();
        foreach (ClrModule m in s.Runtime.EnumerateModules())
        {
            if (!seen.Add(m.Address)) continue;
            j.WriteStartObject();
            j.WriteString("name", m.Name ?? "");
            j.WriteString("assemblyName", m.AssemblyName ?? "");
            j.WriteNumber("size", m.Size);
            j.WriteString("imageBase", Hex.Of(m.ImageBase));
            j.WriteBoolean("isDynamic", m.IsDynamic);
            j.WriteBoolean("isPEFile", m.IsPEFile);
            j.WriteNumber("appDomainId", m.AppDomain?.Id ?? -1);
            j.WriteEndObject();
        }
        j.WriteEndArray();
        j.WriteEndObject();
    }

    /// <summary>`dac`: the file loaded, where it came from, and the facts that tie it to the dump's runtime; `dacCandidates`: ClrMD's list.</summary>
    private static void WriteDac(DumpSession s, Utf8JsonWriter j)
    {
        DacChoice d = s.Dac;
        j.WriteStartObject("dac");
        j.WriteString("file", d.File);
        j.WriteString("source", d.Source);
        j.WriteNumber("candidate", d.Candidate);
        j.WriteString("matchedBy", d.MatchedBy);
        WriteOrNull(j, "dacVersion", d.DacVersion);
        j.WriteString("runtimeVersion", d.RuntimeVersion);
        WriteOrNull(j, "runtimeBuildId", d.RuntimeBuildId);
        WriteOrNull(j, "localRuntimeBuildId", d.LocalRuntimeBuildId);
        j.WriteEndObject();

        j.WriteStartArray("dacCandidates");
        foreach (DebugLibraryInfo lib in s.Clr.DebuggingLibraries)
        {
            if (lib.Kind != DebugLibraryKind.Dac) continue;
            j.WriteStartObject();
            j.WriteString("file", lib.FileName);
            j.WriteString("platform", lib.Platform.ToString());
            j.WriteString("architecture", lib.TargetArchitecture.ToString());
            WriteOrNull(j, "buildId", lib.IndexBuildId.IsDefaultOrEmpty ? null : Convert.ToHexStringLower(lib.IndexBuildId.AsSpan()));
            j.WriteNumber("indexTimeStamp", lib.IndexTimeStamp);
            j.WriteNumber("indexFileSize", lib.IndexFileSize);
            j.WriteBoolean("onDisk", Path.IsPathRooted(lib.FileName) && File.Exists(lib.FileName));
            j.WriteEndObject();
        }
        j.WriteEndArray();
    }

    private static void WriteOrNull(Utf8JsonWriter j, string name, string? value)
    {
        if (value is null) j.WriteNull(name);
        else j.WriteString(name, value);
    }

    private static void WriteDomain(Utf8JsonWriter j, ClrAppDomain d, string kind)
    {
        j.WriteStartObject();
        j.WriteNumber("id", d.Id);
        j.WriteString("name", d.Name ?? "");
        j.WriteString("kind", kind);
        j.WriteString("address", Hex.Of(d.Address));
        j.WriteNumber("moduleCount", d.Modules.Length);
        if (d.ApplicationBase is string b) j.WriteString("applicationBase", b);
        j.WriteEndObject();
    }
}

public static class Hex
{
    public static string Of(ulong v) => $"0x{v:x}";

    public static bool TryParse(string text, out ulong value)
    {
        string t = text.StartsWith("0x", StringComparison.OrdinalIgnoreCase) ? text[2..] : text;
        return ulong.TryParse(t, System.Globalization.NumberStyles.AllowHexSpecifier, null, out value) && t.Length > 0;
    }
}
