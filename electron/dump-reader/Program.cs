using System.Reflection;
using System.Runtime.InteropServices;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// heapscope-dump-reader [--type-histogram] DUMPFILE: streams the managed heap of a process dump to stdout
/// (format: shared/formats/dump/dump-stream.ts). Expected failures are an ERROR record with a
/// code (dump/no-clr, dump/dac-missing, dump/truncated, io/...) and exit code 2, so the Node side
/// shows one coded message; anything else is an ERROR record with dump/helper-crashed.
/// `--type-histogram`: a stats pass first writes the TYPE_HISTOGRAM record (HeapWalker.cs), for a
/// host that shows the type table before the graph; the CLI, which shows nothing earlier, omits it.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        // `--version`: one text line, no stream (npm run package:check runs the packaged helper with it).
        if (args is ["--version"])
        {
            Console.Out.WriteLine($"heapscope-dump-reader {InformationalVersion(typeof(Program).Assembly)} (ClrMD {InformationalVersion(typeof(DataTarget).Assembly)}, {RuntimeInformation.FrameworkDescription}, {RuntimeInformation.RuntimeIdentifier})");
            return 0;
        }
        // heapscope-dump-reader runtime|threads|object|serve DUMP …: JSON queries (QueryServer.cs).
        if (args.Length >= 2 && QueryServer.Commands.Contains(args[0])) return QueryServer.Run(args);
        using Stream stdout = Console.OpenStandardOutput();
        using var w = new HeapStreamWriter(stdout);
        bool histogram = args.Length == 2 && args[0] == "--type-histogram";
        if (histogram) args = args[1..];
        if (args.Length != 1)
        {
            w.Error("usage/bad-argument", "usage: heapscope-dump-reader [--type-histogram] DUMPFILE", "");
            return 2;
        }
        try
        {
            HeapWalker.Walk(args[0], w, histogram);
            w.End();
            return 0;
        }
        catch (DumpError e)
        {
            w.Error(e.Code, e.Message, e.Detail);
            return 2;
        }
        catch (IOException e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            w.Error("io/not-found", e.Message, "");
            return 2;
        }
        catch (IOException e)
        {
            // Reading past the end of a cut-off dump, or a damaged header.
            w.Error("dump/corrupt", $"the dump cannot be read; it is truncated or damaged ({e.Message})", "");
            return 2;
        }
        catch (UnauthorizedAccessException e)
        {
            w.Error("io/denied", e.Message, "");
            return 2;
        }
        catch (Exception e)
        {
            // A truncated or damaged dump makes ClrMD fail in many ways (InvalidDataException,
            // ClrDiagnosticsException, EndOfStream...): one coded error, the message says which.
            w.Error(e is InvalidDataException or EndOfStreamException or NotSupportedException or ClrDiagnosticsException or BadImageFormatException ? "dump/corrupt" : "dump/helper-crashed",
                $"{e.GetType().Name}: {e.Message}", "");
            return 2;
        }
    }

    private static string InformationalVersion(Assembly a) =>
        (a.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? a.GetName().Version?.ToString() ?? "?").Split('+')[0];
}

public sealed class DumpError(string code, string message, string detail = "") : Exception(message)
{
    public string Code { get; } = code;
    public string Detail { get; } = detail;
}
