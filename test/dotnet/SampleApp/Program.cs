// Heapscope's sample workload: a tiny in-memory order service with the memory shapes people hunt
// in real apps. Deterministic (fixed seed); prints "READY <pid>" once the heap is built, then waits
// for stdin to close.
//
// - Catalog: 2,000 products (strings, decimals) in a Dictionary, held by a static.
// - Customers: 2,000 customers, each with a list of orders (3 on average) of order lines.
// - SessionCache: 600 sessions keyed by token; 120 expired ones are never evicted (a leak).
// - ReportViews: 150 views subscribed to PriceChanged and never unsubscribed (the classic leak).
// - Large buffers: 4 × 256 KB byte arrays (LOH), an image cache of 64 KB arrays, one pinned buffer.
// - A WeakReference cache and a ConditionalWeakTable, so weak roots show up.
using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;

namespace SampleShop;

public sealed record Product(int Id, string Sku, string Name, decimal Price, string[] Tags);
public sealed class OrderLine { public Product Product = null!; public int Quantity; public decimal Total; }
public sealed class Order { public Guid Id; public DateTime Placed; public List<OrderLine> Lines = new(); public string? Note; }
public sealed class Customer { public int Id; public string Name = ""; public string Email = ""; public List<Order> Orders = new(); public Dictionary<string, string> Preferences = new(); }
public sealed class Session { public string Token = ""; public Customer Customer = null!; public DateTime Expires; public StringBuilder History = new(); public byte[] Scratch = new byte[512]; }

public sealed class PriceFeed
{
    public event Action<Product>? PriceChanged;
    public void Publish(Product p) => PriceChanged?.Invoke(p);
}

public sealed class ReportView
{
    private readonly List<string> _lines = new();
    private readonly double[] _series = new double[128];
    public ReportView(PriceFeed feed) => feed.PriceChanged += OnPrice;
    private void OnPrice(Product p) => _lines.Add(p.Sku);
}

public static class Shop
{
    public static readonly Dictionary<int, Product> Catalog = new();
    public static readonly List<Customer> Customers = new();
    public static readonly ConcurrentDictionary<string, Session> SessionCache = new();
    public static readonly PriceFeed Prices = new();
    public static readonly List<byte[]> LargeBuffers = new();
    public static readonly Dictionary<string, byte[]> ImageCache = new();
    public static readonly List<WeakReference<Order>> RecentOrders = new();
    public static readonly ConditionalWeakTable<Customer, string> Notes = new();
    public static GCHandle PinnedBuffer;
}

public static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Build()
    {
        var rng = new Random(20261121);
        string[] words = { "red", "blue", "steel", "oak", "linen", "smart", "mini", "pro", "eco", "classic" };
        for (int i = 0; i < 2000; i++)
        {
            var tags = new string[rng.Next(1, 4)];
            for (int t = 0; t < tags.Length; t++) tags[t] = words[rng.Next(words.Length)];
            var p = new Product(i, $"SKU-{i:D5}", $"{words[rng.Next(words.Length)]} item {i}", rng.Next(100, 100_000) / 100m, tags);
            Shop.Catalog[i] = p;
        }
        for (int c = 0; c < 2000; c++)
        {
            var cust = new Customer { Id = c, Name = $"Customer {c}", Email = $"customer{c}@example.invalid" };
            cust.Preferences["lang"] = c % 3 == 0 ? "fr" : "en";
            if (c % 5 == 0) cust.Preferences["newsletter"] = "yes";
            int orders = rng.Next(0, 7);
            for (int o = 0; o < orders; o++)
            {
                var order = new Order { Id = new Guid(rng.Next(), 0, 0, new byte[8]), Placed = new DateTime(2026, 1, 1).AddMinutes(rng.Next(500_000)) };
                int lines = rng.Next(1, 5);
                for (int l = 0; l < lines; l++)
                {
                    var product = Shop.Catalog[rng.Next(2000)];
                    int q = rng.Next(1, 4);
                    order.Lines.Add(new OrderLine { Product = product, Quantity = q, Total = product.Price * q });
                }
                if (rng.Next(10) == 0) order.Note = $"Leave at door #{rng.Next(1000)}";
                cust.Orders.Add(order);
                if (rng.Next(20) == 0) Shop.RecentOrders.Add(new WeakReference<Order>(order));
            }
            if (c % 50 == 0) Shop.Notes.Add(cust, $"VIP since {2000 + c % 25}");
            Shop.Customers.Add(cust);
        }
        for (int s = 0; s < 600; s++)
        {
            var session = new Session
            {
                Token = Convert.ToHexString(BitConverter.GetBytes(rng.NextInt64())),
                Customer = Shop.Customers[rng.Next(Shop.Customers.Count)],
                Expires = s < 120 ? new DateTime(2025, 1, 1) : new DateTime(2027, 1, 1),
            };
            for (int h = 0; h < 5; h++) session.History.Append("/catalog/").Append(rng.Next(2000)).Append(';');
            Shop.SessionCache[session.Token] = session;
        }
        for (int v = 0; v < 150; v++) _ = new ReportView(Shop.Prices);
        for (int b = 0; b < 4; b++) Shop.LargeBuffers.Add(new byte[256 * 1024]);
        for (int img = 0; img < 12; img++) Shop.ImageCache[$"img/{img}.png"] = new byte[64 * 1024];
        Shop.PinnedBuffer = GCHandle.Alloc(new byte[16 * 1024], GCHandleType.Pinned);
    }

    public static int Main()
    {
        Build();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine($"READY {Environment.ProcessId}");
        Console.Out.Flush();
        Console.In.ReadToEnd();
        Shop.Prices.Publish(Shop.Catalog[0]);
        return 0;
    }
}
