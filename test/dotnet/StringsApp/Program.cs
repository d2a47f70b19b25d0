// Heapscope test target: keeps known duplicate strings alive, prints "READY <pid>", then waits
// until stdin closes. All copies are distinct objects (built at run time, never interned):
//
//   5,000 × "heapscope-dup-A"                          (15 chars, 52 bytes each on 64-bit)
//     300 × a 200-char string ("heapscope-dup-B-" + 184 'b')   (432 bytes each)
//      20 × a 3,000-char string ("heapscope-dup-C-" + 2,984 'c') (the dump keeps 1,024 chars)
//   1,000 references to the literal "heapscope-literal-D": one object, so one copy
//     100 × "heapscope-dead-E" made after the last GC and dropped: unreachable, not counted
// Option --unique N: N more distinct strings ("u0", "u1", …) kept alive, for timing the reader.
using System.Runtime.CompilerServices;
using System.Text;

namespace HeapscopeTest;

public static class Kept
{
    public static readonly List<string> Strings = new();
    public static readonly string[] Literals = new string[1000];
}

public static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void MakeCopies()
    {
        char[] a = "heapscope-dup-A".ToCharArray();
        for (int i = 0; i < 5000; i++) Kept.Strings.Add(new string(a));
        for (int i = 0; i < 300; i++) Kept.Strings.Add(new StringBuilder("heapscope-dup-B-").Append('b', 184).ToString());
        for (int i = 0; i < 20; i++) Kept.Strings.Add(new StringBuilder("heapscope-dup-C-").Append('c', 2984).ToString());
        for (int i = 0; i < Kept.Literals.Length; i++) Kept.Literals[i] = "heapscope-literal-D";
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int MakeGarbage()
    {
        char[] e = "heapscope-dead-E".ToCharArray();
        int total = 0;
        for (int i = 0; i < 100; i++) total += new string(e).Length;
        return total;
    }

    public static int Main(string[] args)
    {
        MakeCopies();
        int unique = Array.IndexOf(args, "--unique") is int u && u >= 0 && u + 1 < args.Length ? int.Parse(args[u + 1]) : 0;
        for (int i = 0; i < unique; i++) Kept.Strings.Add("u" + i.ToString());
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        MakeGarbage();
        Console.WriteLine($"READY {Environment.ProcessId}");
        Console.Out.Flush();
        Console.In.ReadToEnd();
        GC.KeepAlive(Kept.Strings);
        return 0;
    }
}
