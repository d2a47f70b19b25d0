// Heapscope benchmark target: keeps about N objects alive (--objects N, default 5,000,000),
// prints "READY <pid> <objects>", then waits until stdin closes.
//
//   static Shop.Customers (Customer[]) --> N/5 Customer
//     each Customer --> Name (a distinct string), Orders (Order[2]) --> 2 Order --> a shared Product
//   static Shop.Products (Product[]) --> 1,000 Product, each with a Name string
//
// so each customer brings 5 objects (Customer, string, Order[], 2 Order) and about 5 references
// (Customer→Name, Customer→Orders, Order[]→2 Order, Order→Product ×2 = 6), like an ordinary
// business heap: many small objects, a few hubs (the products) referenced a lot.
using System.Runtime.CompilerServices;

namespace HeapscopeBench;

public sealed class Product
{
    public readonly string Name;
    public readonly decimal Price;
    public Product(int i) { Name = "product-" + i; Price = i % 100; }
}

public sealed class Order
{
    public readonly Product Product;
    public readonly int Quantity;
    public Order(Product p, int q) { Product = p; Quantity = q; }
}

public sealed class Customer
{
    public readonly string Name;
    public readonly Order[] Orders;
    public Customer(string name, Order[] orders) { Name = name; Orders = orders; }
}

public static class Shop
{
    public static Product[] Products = Array.Empty<Product>();
    public static Customer[] Customers = Array.Empty<Customer>();
}

public static class Program
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Build(int objects)
    {
        Shop.Products = new Product[1000];
        for (int i = 0; i < Shop.Products.Length; i++) Shop.Products[i] = new Product(i);
        int customers = objects / 5;
        Shop.Customers = new Customer[customers];
        for (int i = 0; i < customers; i++)
        {
            var orders = new Order[2];
            orders[0] = new Order(Shop.Products[i % 1000], 1);
            orders[1] = new Order(Shop.Products[(i * 7 + 3) % 1000], 2);
            Shop.Customers[i] = new Customer("customer-" + i, orders);
        }
    }

    public static int Main(string[] args)
    {
        int objects = Array.IndexOf(args, "--objects") is int i0 && i0 >= 0 && i0 + 1 < args.Length ? int.Parse(args[i0 + 1]) : 5_000_000;
        Build(objects);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Console.WriteLine($"READY {Environment.ProcessId} {objects}");
        Console.Out.Flush();
        Console.In.ReadToEnd();
        GC.KeepAlive(Shop.Customers);
        return 0;
    }
}
