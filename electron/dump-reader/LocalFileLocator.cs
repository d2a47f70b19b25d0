using System.Collections.Immutable;
using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// The dump reader's file locator: files on this machine only, never a symbol server. ClrMD's
/// default locator downloads missing binaries (the DAC on Windows, PE images) from Microsoft's
/// symbol server over HTTPS; behind a firewall that drops packets every dump open would wait for a
/// network timeout. A file the dump names by full path is returned when it exists here (what the
/// default locator does first); anything else is "not found", and DacChoice then falls back to the
/// runtime directory and the installed shared runtimes (or reports dump/dac-missing).
/// </summary>
public sealed class LocalFileLocator : IFileLocator
{
    public string? FindPEImage(string fileName, int buildTimeStamp, int imageSize, bool checkProperties) => Local(fileName);

    public string? FindPEImage(string fileName, SymbolProperties archivedUnder, ImmutableArray<byte> buildIdOrUUID, OSPlatform originalPlatform, bool checkProperties) => Local(fileName);

    public string? FindElfImage(string fileName, SymbolProperties archivedUnder, ImmutableArray<byte> buildId, bool checkProperties) => Local(fileName);

    public string? FindMachOImage(string fileName, SymbolProperties archivedUnder, ImmutableArray<byte> uuid, bool checkProperties) => Local(fileName);

    private static string? Local(string fileName) => Path.IsPathRooted(fileName) && File.Exists(fileName) ? fileName : null;
}
