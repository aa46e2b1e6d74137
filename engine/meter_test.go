package engine

import (
	"testing"
	"time"
)

func TestMeterEstimatesFromBytes(t *testing.T) {
	m := meter{start: time.Now().Add(-10 * time.Second)}
	p := Progress{Phase: "index", Done: 100, Total: 1000, Bytes: 1 << 20, BytesTotal: 4 << 20}
	m.fill(&p)
	if p.FilesPerSecond < 9 || p.FilesPerSecond > 10.1 {
		t.Errorf("rate %.2f files/s, want about 10", p.FilesPerSecond)
	}
	// A quarter of the bytes in 10 s: about 30 s left (not 90 s, as the
	// file count would say).
	if p.EtaSeconds < 29 || p.EtaSeconds > 31 {
		t.Errorf("eta %.1f s, want about 30", p.EtaSeconds)
	}
	early := meter{}
	q := Progress{Phase: "index", Done: 1, Total: 10, Bytes: 10, BytesTotal: 100}
	early.fill(&q)
	if q.EtaSeconds != -1 || q.FilesPerSecond != 0 {
		t.Errorf("at the start: eta %.1f rate %.1f, want unknown", q.EtaSeconds, q.FilesPerSecond)
	}
}
