package service

import "testing"

func TestProgressSummary(t *testing.T) {
	p := Progress{Done: 1204, Total: 8444, Rate: Rate{Bytes: 12_100_000, BytesTotal: 90_300_000, FilesPerSecond: 85, EtaSeconds: 85}}
	if got, want := p.Summary(), "1204/8444 files, 12.1/90.3 MB, 85 files/s, about 1m25s left"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	p = Progress{Done: 3, Total: 10, Rate: Rate{EtaSeconds: -1}}
	if got, want := p.Summary(), "3/10 files"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}
