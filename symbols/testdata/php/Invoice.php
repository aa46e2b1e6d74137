<?php

declare(strict_types=1);

namespace App\Billing;

use App\Models\Customer;

/** Tax rate applied by default. */
const DEFAULT_TAX = 0.2, ROUNDING = 2;

/**
 * Formats an amount of money.
 */
function format_amount(float $amount, string $currency = 'EUR'): string
{
    return sprintf('%.2f %s', $amount, $currency);
}

/**
 * An invoice for a customer.
 */
#[Entity(table: 'invoices')]
final class Invoice extends Document implements \JsonSerializable
{
    use HasTimestamps;

    public const STATUS_DRAFT = 'draft';
    private const SECRET = 'x';

    private array $lines = [];

    /** Creates an invoice. */
    public function __construct(private Customer $customer, private float $tax = DEFAULT_TAX)
    {
    }

    /** Adds a line. */
    public function addLine(string $label, float $amount): static
    {
        $this->lines[] = [$label, $amount];
        return $this;
    }

    protected function subtotal(): float
    {
        return array_sum(array_column($this->lines, 1));
    }

    private function round(float $v): float
    {
        return round($v, ROUNDING);
    }

    function legacyPublic()
    {
    }

    public static function draft(Customer $c): self
    {
        return new self($c);
    }

    public function jsonSerialize(): mixed
    {
        return ['customer' => $this->customer->id, 'lines' => $this->lines];
    }
}

interface Payable
{
    public function pay(float $amount): bool;
}

trait HasTimestamps
{
    public function touch(): void {}
}

enum Currency: string
{
    case Euro = 'EUR';

    public function symbol(): string
    {
        return '€';
    }
}
