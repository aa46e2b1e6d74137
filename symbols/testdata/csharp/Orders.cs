using System;
using System.Collections.Generic;

namespace Shop.Orders
{
    /// <summary>
    /// An order placed by a <see cref="Customer"/>.
    /// </summary>
    [Serializable]
    public class Order : IComparable<Order>
    {
        /// <summary>Maximum lines per order.</summary>
        public const int MaxLines = 100, MinLines = 1;
        private const string Prefix = "ORD";
        private readonly List<Line> lines = new();

        /// <summary>Creates an empty order.</summary>
        public Order(Guid id)
        {
            Id = id;
        }

        public Guid Id { get; }

        /// <summary>Adds a line.</summary>
        /// <param name="line">The line to add.</param>
        [Obsolete("Use AddLines")]
        public void AddLine(Line line) => lines.Add(line);

        internal decimal Total() { return 0m; }

        private static bool Validate(Line line) => line.Quantity > 0;

        public int CompareTo(Order other) => Id.CompareTo(other.Id);

        public delegate void Changed(Order order);

        /// <summary>A single order line.</summary>
        public record Line(string Sku, int Quantity);

        public enum Status { Open, Paid, Shipped }

        protected struct Cursor
        {
            public int Position;
        }
    }

    public interface IRepository<T> where T : class
    {
        T Find(Guid id);
        void Save(T item);
    }

    class InternalHelper
    {
        public static void Run() { }
    }
}
