import { formatMoney, relativeDate } from "../utils/format";

export interface OrderRow {
  id: string;
  customer: string;
  cents: number;
  currency: string;
  placedAt: string;
  state: "placed" | "paid" | "shipped" | "delivered" | "cancelled";
}

// OrderTable lists orders, newest first, with a cancel button for those not shipped.
export function OrderTable({ rows, onCancel }: { rows: OrderRow[]; onCancel: (id: string) => void }) {
  const sorted = [...rows].sort((a, b) => b.placedAt.localeCompare(a.placedAt));
  return (
    <table className="orders">
      <tbody>
        {sorted.map((r) => (
          <tr key={r.id}>
            <td>{r.customer}</td>
            <td>{formatMoney(r.cents, r.currency)}</td>
            <td>{relativeDate(r.placedAt)}</td>
            <td>{r.state === "placed" || r.state === "paid" ? <button onClick={() => onCancel(r.id)}>Cancel</button> : null}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
