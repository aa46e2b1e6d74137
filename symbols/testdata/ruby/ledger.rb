# frozen_string_literal: true

require "json"

# Accounting helpers: a fixture for Ruby symbol extraction.
module Accounting
  VERSION = "2.1.0"
  DEFAULT_CURRENCY = :usd

  # Ledger records entries.
  #
  # Entries are immutable once posted.
  class Ledger < Base
    attr_reader :entries

    # Creates an empty ledger.
    def initialize(currency = DEFAULT_CURRENCY)
      @currency = currency
      @entries = []
    end

    # Posts an entry.
    def post(amount, memo: nil, **opts)
      @entries << { amount: amount, memo: memo }.merge(opts)
      self
    end

    def self.load(path)
      new.tap { |l| l.import(File.read(path)) }
    end

    def balance = entries.sum { |e| e[:amount] }

    protected

    def audit_trail
      entries.map(&:to_json)
    end

    private

    def validate!(amount)
      raise ArgumentError unless amount.is_a?(Numeric)
    end

    public

    def to_s
      "#<Ledger #{entries.size}>"
    end

    private def secret; end

    def helper; end
    private :helper

    class << self
      def registry
        @registry ||= {}
      end
    end
  end
end

class Accounting::Reports::Summary
  def render; end
end

# Top-level helper.
def format_money(cents)
  format("%.2f", cents / 100.0)
end
