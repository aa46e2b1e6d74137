// Display helpers shared by the dashboard's components.

const symbols: Record<string, string> = { EUR: "€", USD: "$", GBP: "£" };

// formatMoney renders minor units (cents) as "€12.34".
export function formatMoney(cents: number, currency: string): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const major = Math.floor(abs / 100);
  const minor = String(abs % 100).padStart(2, "0");
  return `${sign}${symbols[currency] ?? currency + " "}${major}.${minor}`;
}

// relativeDate says "today", "yesterday" or the date.
export function relativeDate(iso: string, now = new Date()): string {
  const d = new Date(iso);
  const days = Math.floor((now.getTime() - d.getTime()) / 86400000);
  if (days === 0) return "today";
  if (days === 1) return "yesterday";
  return d.toISOString().slice(0, 10);
}
