// Usage: GcStatsOracle TRACE.nettrace
// Prints {"gcs":[{number, generation, type, pauseMs, pauseStartMs, startMs, suspendMs}, ...]} as
// TraceEvent's GC analysis (TraceLoadedDotNetRuntime.GC.GCs, the numbers PerfView's GCStats
// shows) computes them. Times are ms since the trace's session start.
using System.Globalization;
using System.Text;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Analysis.GC;

if (args.Length != 1)
{
    Console.Error.WriteLine("usage: GcStatsOracle TRACE.nettrace");
    return 2;
}
using var source = new EventPipeEventSource(args[0]);
source.NeedLoadedDotNetRuntimes();
source.Process();
var json = new StringBuilder("{\"gcs\":[");
string N(double x) => x.ToString("R", CultureInfo.InvariantCulture);
bool first = true;
foreach (var process in source.Processes())
{
    var runtime = process.LoadedDotNetRuntime();
    if (runtime == null) continue;
    foreach (TraceGC gc in runtime.GC.GCs)
    {
        if (!first) json.Append(',');
        first = false;
        json.Append($"{{\"number\":{gc.Number},\"generation\":{gc.Generation},\"type\":\"{gc.Type}\",\"complete\":{(gc.IsComplete ? "true" : "false")}," +
                    $"\"pauseMs\":{N(gc.PauseDurationMSec)},\"pauseStartMs\":{N(gc.PauseStartRelativeMSec)},\"startMs\":{N(gc.StartRelativeMSec)},\"suspendMs\":{N(gc.SuspendDurationMSec)}}}");
    }
}
json.Append("]}");
Console.WriteLine(json.ToString());
return 0;
