using System.Text;
using System.Text.Json;
using Microsoft.Diagnostics.Runtime;

namespace Heapscope.DumpReader;

/// <summary>
/// The small queries, answered as one line of JSON each (unlike the heap, which is a binary stream):
///
///   heapscope-dump-reader runtime DUMP
///   heapscope-dump-reader threads DUMP
///   heapscope-dump-reader object DUMP ADDRESS [ELEMENTS [CHARS]]
///     → {"ok":true,"result":{...}} or {"ok":false,"error":{"code","message","detail"}}; exit 0 / 2
///   heapscope-dump-reader serve DUMP
///     → opens the dump once and writes {"ready":true} (or {"ready":false,"error":{...}} and exits 2);
///       then reads one request per stdin line, {"id":N,"query":"runtime"|"threads"|"object",
///       "address":"0x…","elements":N,"chars":N}, and writes one answer line per request,
///       {"id":N,"ok":true,"result":{...}} or {"id":N,"ok":false,"error":{...}}; exits 0 at the end of stdin.
///
/// Result shapes: shared/formats/dump/dump-queries.ts. One failed request does not end the server.
/// </summary>
public static class QueryServer
{
    public static readonly string[] Commands = ["runtime", "threads", "object", "serve"];

    public static int Run(string[] args)
    {
        using Stream stdout = Console.OpenStandardOutput();
        string command = args[0];
        string path = args[1];
        if (command == "serve") return Serve(path, stdout);

        var request = new Request(command, args.Length > 2 ? args[2] : null,
            args.Length > 3 && int.TryParse(args[3], out int n) ? n : ObjectQuery.DefaultElements,
            args.Length > 4 && int.TryParse(args[4], out int c) ? c : ObjectQuery.DefaultChars);
        DumpSession session;
        try
        {
            // A malformed address fails before the dump is opened.
            if (command == "object") ParseAddress(request.Address);
            session = DumpSession.Open(path);
        }
        catch (Exception e)
        {
            WriteLine(stdout, j => WriteError(j, null, e));
            return 2;
        }
        using (session)
        {
            bool ok = Answer(session, request, null, stdout);
            return ok ? 0 : 2;
        }
    }

    private static int Serve(string path, Stream stdout)
    {
        DumpSession session;
        try
        {
            session = DumpSession.Open(path);
        }
        catch (Exception e)
        {
            WriteLine(stdout, j =>
            {
                j.WriteStartObject();
                j.WriteBoolean("ready", false);
                WriteErrorBody(j, e);
                j.WriteEndObject();
            });
            return 2;
        }
        using (session)
        {
            WriteLine(stdout, j =>
            {
                j.WriteStartObject();
                j.WriteBoolean("ready", true);
                j.WriteEndObject();
            });
            using var stdin = new StreamReader(Console.OpenStandardInput(), Encoding.UTF8);
            while (stdin.ReadLine() is string line)
            {
                if (line.Trim().Length == 0) continue;
                long? id = null;
                Request request;
                try
                {
                    using JsonDocument doc = JsonDocument.Parse(line);
                    JsonElement root = doc.RootElement;
                    if (root.TryGetProperty("id", out JsonElement idEl) && idEl.TryGetInt64(out long i)) id = i;
                    request = new Request(
                        root.TryGetProperty("query", out JsonElement q) ? q.GetString() ?? "" : "",
                        root.TryGetProperty("address", out JsonElement a) ? a.GetString() : null,
                        root.TryGetProperty("elements", out JsonElement el) && el.TryGetInt32(out int ne) ? ne : ObjectQuery.DefaultElements,
                        root.TryGetProperty("chars", out JsonElement ch) && ch.TryGetInt32(out int nc) ? nc : ObjectQuery.DefaultChars);
                }
                catch (Exception e) when (e is JsonException or InvalidOperationException)
                {
                    WriteLine(stdout, j => WriteError(j, id, new DumpError("usage/bad-argument", $"not a request: {e.Message}")));
                    continue;
                }
                Answer(session, request, id, stdout);
            }
        }
        return 0;
    }

    private sealed record Request(string Query, string? Address, int Elements, int Chars);

    /// <summary>Answer one request on one line; false when it failed (the answer is then the coded error).</summary>
    private static bool Answer(DumpSession s, Request request, long? id, Stream stdout)
    {
        // The answer is built in memory first, so a failure midway still writes one whole line.
        var buffer = new MemoryStream();
        try
        {
            using (var j = new Utf8JsonWriter(buffer))
            {
                j.WriteStartObject();
                if (id is long i) j.WriteNumber("id", i);
                j.WriteBoolean("ok", true);
                j.WritePropertyName("result");
                switch (request.Query)
                {
                    case "runtime": RuntimeQuery.Write(s, j); break;
                    case "threads": ThreadsQuery.Write(s, j); break;
                    case "object":
                        ObjectQuery.Write(s, ParseAddress(request.Address), Math.Clamp(request.Elements, 0, ObjectQuery.MaxElements), Math.Clamp(request.Chars, 0, 1 << 20), j);
                        break;
                    default: throw new DumpError("usage/bad-argument", $"unknown query '{request.Query}' (runtime, threads, object)");
                }
                j.WriteEndObject();
            }
            buffer.WriteByte((byte)'\n');
            stdout.Write(buffer.GetBuffer(), 0, (int)buffer.Length);
            stdout.Flush();
            return true;
        }
        catch (Exception e)
        {
            WriteLine(stdout, j => WriteError(j, id, e));
            return false;
        }
    }

    private static ulong ParseAddress(string? text)
    {
        if (text is null || !Hex.TryParse(text, out ulong address))
            throw new DumpError("usage/bad-argument", $"'{text ?? ""}' is not a hexadecimal address");
        return address;
    }

    private static void WriteError(Utf8JsonWriter j, long? id, Exception e)
    {
        j.WriteStartObject();
        if (id is long i) j.WriteNumber("id", i);
        j.WriteBoolean("ok", false);
        WriteErrorBody(j, e);
        j.WriteEndObject();
    }

    /// <summary>The coded error, classified as Program.Main classifies the heap walk's failures.</summary>
    private static void WriteErrorBody(Utf8JsonWriter j, Exception e)
    {
        (string code, string message, string detail) = e switch
        {
            DumpError d => (d.Code, d.Message, d.Detail),
            FileNotFoundException or DirectoryNotFoundException => ("io/not-found", e.Message, ""),
            UnauthorizedAccessException => ("io/denied", e.Message, ""),
            IOException or InvalidDataException or EndOfStreamException or NotSupportedException or ClrDiagnosticsException or BadImageFormatException
                => ("dump/corrupt", $"the dump cannot be read; it is truncated or damaged ({e.GetType().Name}: {e.Message})", ""),
            _ => ("dump/query-failed", $"{e.GetType().Name}: {e.Message}", ""),
        };
        j.WriteStartObject("error");
        j.WriteString("code", code);
        j.WriteString("message", message);
        if (detail.Length > 0) j.WriteString("detail", detail);
        j.WriteEndObject();
    }

    private static void WriteLine(Stream stdout, Action<Utf8JsonWriter> write)
    {
        var buffer = new MemoryStream();
        using (var j = new Utf8JsonWriter(buffer)) write(j);
        buffer.WriteByte((byte)'\n');
        stdout.Write(buffer.GetBuffer(), 0, (int)buffer.Length);
        stdout.Flush();
    }
}
