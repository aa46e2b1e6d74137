// Package export writes orders out for spreadsheets and accounting tools.
package export

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// Row is one order line as exported.
type Row struct {
	OrderID  string
	Customer string
	SKU      string
	Quantity int
	Cents    int64
}

// WriteCSV writes rows with a header line. Fields that a spreadsheet would
// read as a formula (starting with =, +, - or @) are prefixed with a quote.
func WriteCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"order", "customer", "sku", "quantity", "amount"}); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{r.OrderID, neutralise(r.Customer), neutralise(r.SKU), strconv.Itoa(r.Quantity), formatCents(r.Cents)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func neutralise(s string) string {
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}

func formatCents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return sign + strconv.FormatInt(c/100, 10) + "." + strconv.FormatInt(c%100+100, 10)[1:]
}
