package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/context-ls/context-ls/internal/lsptest"
	"github.com/context-ls/context-ls/lsp/session"
	"github.com/context-ls/context-ls/service"
)

// progressValue decodes a $/progress notification.
type progressValue struct {
	Token json.RawMessage `json:"token"`
	Value struct {
		Kind       string  `json:"kind"`
		Title      string  `json:"title"`
		Message    string  `json:"message"`
		Percentage *uint32 `json:"percentage"`
	} `json:"value"`
}

func progressMessages(t *testing.T, c *lsptest.Client) (creates []json.RawMessage, values []progressValue) {
	t.Helper()
	for _, m := range c.Messages() {
		switch m.Method {
		case "window/workDoneProgress/create":
			var p struct {
				Token json.RawMessage `json:"token"`
			}
			must(t, m.Decode(&p))
			creates = append(creates, p.Token)
		case "$/progress":
			var v progressValue
			must(t, m.Decode(&v))
			values = append(values, v)
		}
	}
	return creates, values
}

// progressBackend reports progress from OpenFolder: upTo files of total
// before it returns, and hands the reporter on (indexing continues in the
// background) when resume is set.
type progressBackend struct {
	fakeBackend
	upTo, total int
	resume      chan func(done, total int)
}

// indexAt is the service's progress after done files of total, 2 kB each,
// at 50 files a second, as the service reports an index run.
func indexAt(done, total int) service.Progress {
	p := service.Progress{Title: "Indexing", Done: done, Total: total, Rate: service.Rate{Bytes: int64(done) * 2000,
		BytesTotal: int64(total) * 2000, FilesPerSecond: 50, EtaSeconds: float64(total-done) / 50}}
	if done == 0 {
		p.FilesPerSecond, p.EtaSeconds = 0, -1
	}
	p.Message = p.Summary()
	if done == total {
		p = service.Progress{Title: "Indexing", Done: done, Total: total, End: true, Message: fmt.Sprintf("%d files indexed", total)}
	}
	return p
}

func (b *progressBackend) OpenFolder(ctx context.Context, root string, s session.Settings, progress func(service.Progress)) error {
	for i := 0; i <= b.upTo; i++ {
		progress(indexAt(i, b.total))
	}
	if b.resume != nil {
		b.resume <- func(done, total int) { progress(indexAt(done, total)) }
	}
	return nil
}

func TestIndexProgress(t *testing.T) {
	b := &progressBackend{upTo: 40, total: 120, resume: make(chan func(done, total int), 1)}
	resume := b.resume
	h := startServer(t, Options{Backend: b})
	h.initialize(clientCaps{progress: true}, nil)
	progress := <-resume
	_, err := h.c.Await(testCtx(t), func(m lsptest.Message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), strconv.Quote(indexAt(40, 120).Message))
	})
	must(t, err)
	h.status()
	// OpenFolder returned with work left: the progress is still open.
	_, values := progressMessages(t, h.c)
	for _, v := range values {
		if v.Value.Kind == "end" {
			t.Fatalf("progress ended while work remained: %+v", v)
		}
	}
	for i := 41; i <= 120; i++ {
		progress(i, 120)
	}
	var end lsptest.Message
	end, err = h.c.Await(testCtx(t), func(m lsptest.Message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), `"end"`)
	})
	must(t, err)
	creates, values := progressMessages(t, h.c)
	if len(creates) != 1 {
		t.Fatalf("%d create requests", len(creates))
	}
	if len(values) < 3 {
		t.Fatalf("progress values %+v", values)
	}
	first, last := values[0], values[len(values)-1]
	if first.Value.Kind != "begin" || !strings.HasPrefix(first.Value.Title, "Indexing") || first.Value.Percentage == nil || *first.Value.Percentage != 0 {
		t.Errorf("first value %+v", first.Value)
	}
	if last.Value.Kind != "end" || last.Value.Message != "120 files indexed" {
		t.Errorf("last value %+v (%s)", last.Value, end.Params)
	}
	prev := uint32(0)
	for _, v := range values {
		if string(v.Token) != string(creates[0]) {
			t.Errorf("token %s, want the created %s", v.Token, creates[0])
		}
		if v.Value.Kind == "report" {
			if v.Value.Percentage == nil || *v.Value.Percentage < prev || *v.Value.Percentage > 100 {
				t.Errorf("report %+v after %d%%", v.Value, prev)
			} else {
				prev = *v.Value.Percentage
			}
			// The message is the service's line (the CLI's), and the
			// percentage is its files done of total.
			var done int
			if _, err := fmt.Sscanf(v.Value.Message, "%d/120 files", &done); err != nil {
				t.Errorf("report message %q: %v", v.Value.Message, err)
			} else if want := indexAt(done, 120).Message; done < 120 && v.Value.Message != want {
				t.Errorf("report message %q, want the service's %q", v.Value.Message, want)
			} else if v.Value.Percentage != nil && *v.Value.Percentage != uint32(done*100/120) {
				t.Errorf("report %q at %d%%, want %d%%", v.Value.Message, *v.Value.Percentage, done*100/120)
			}
		}
	}
	if len(values) > 60 {
		t.Errorf("%d progress values for 121 reports sent in bursts: not throttled", len(values))
	}
}

func TestProgressUnsupportedOrRefused(t *testing.T) {
	t.Run("client without workDoneProgress", func(t *testing.T) {
		h := startServer(t, Options{Backend: &progressBackend{upTo: 2, total: 2}})
		h.initialize(clientCaps{}, nil)
		h.status()
		if c, v := progressMessages(t, h.c); len(c)+len(v) != 0 {
			t.Errorf("progress sent: %v %v", c, v)
		}
	})
	t.Run("client refuses the token", func(t *testing.T) {
		h := startServer(t, Options{Backend: &progressBackend{upTo: 2, total: 2}})
		created := make(chan struct{})
		h.c.Handle("window/workDoneProgress/create", func(json.RawMessage) (any, error) {
			defer close(created)
			return nil, &lsptest.RPCError{Code: -32603, Message: "no"}
		})
		h.initialize(clientCaps{progress: true}, nil)
		<-created
		h.status()
		if _, v := progressMessages(t, h.c); len(v) != 0 {
			t.Errorf("progress sent after a refused create: %v", v)
		}
	})
}

func TestCommandProgressOnClientToken(t *testing.T) {
	type args struct{}
	cmd := NewCommand("test.progress", "test: report progress", func(ctx context.Context, env *CommandEnv, _ args) (string, error) {
		report := env.Progress("Working", "steps")
		report(1, 2)
		report(2, 2)
		return "done", nil
	})
	h := startServer(t, Options{commands: append(commandTable(), cmd)})
	h.initialize(clientCaps{progress: true}, nil)
	var out string
	must(t, h.c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": "test.progress", "workDoneToken": "client-tok-1"}, &out))
	_, err := h.c.Await(testCtx(t), func(m lsptest.Message) bool {
		return m.Method == "$/progress" && strings.Contains(string(m.Params), `"end"`)
	})
	must(t, err)
	creates, values := progressMessages(t, h.c)
	created := map[string]bool{}
	for _, c := range creates {
		created[string(c)] = true
	}
	// Only the folder's indexing progress has a server-created token.
	var mine []progressValue
	for _, v := range values {
		if !created[string(v.Token)] {
			mine = append(mine, v)
		}
	}
	if len(mine) < 2 || mine[0].Value.Kind != "begin" || mine[0].Value.Title != "Working" {
		t.Fatalf("values %+v", mine)
	}
	for _, v := range mine {
		if string(v.Token) != `"client-tok-1"` {
			t.Errorf("token %s", v.Token)
		}
	}
}

// recordingSink records notifications with their times.
type recordingSink struct {
	mu    sync.Mutex
	kinds []string
	times []time.Time
}

func (r *recordingSink) Call(context.Context, string, any) (json.RawMessage, error) {
	return json.RawMessage("null"), nil
}

func (r *recordingSink) Notify(method string, params any) error {
	kind := ""
	switch v := params.(progressParams).Value.(type) {
	case progressBegin:
		kind = v.Kind
	case progressReport:
		kind = v.Kind + " " + v.Message
	case progressEnd:
		kind = v.Kind + " " + v.Message
	}
	r.mu.Lock()
	r.kinds = append(r.kinds, kind)
	r.times = append(r.times, time.Now())
	r.mu.Unlock()
	return nil
}

func TestProgressThrottle(t *testing.T) {
	sink := &recordingSink{}
	p := startProgress(context.Background(), sink, json.RawMessage(`"t"`), true, "Busy", "files", time.Second)
	start := time.Now()
	n := 0
	for time.Since(start) < 350*time.Millisecond {
		n++
		p.report(n, 1<<30)
	}
	elapsed := time.Since(start)
	p.end("stopped")
	p.wait(testCtx(t))
	sink.mu.Lock()
	defer sink.mu.Unlock()
	reports := 0
	for _, k := range sink.kinds {
		if strings.HasPrefix(k, "report") {
			reports++
		}
	}
	if sink.kinds[0] != "begin" || sink.kinds[len(sink.kinds)-1] != "end stopped" {
		t.Errorf("sequence %q", sink.kinds)
	}
	// At most one report per interval (plus the first), however fast the
	// caller reports.
	if limit := int(elapsed/progressInterval) + 2; reports > limit {
		t.Errorf("%d reports in %v (%d calls), limit %d", reports, elapsed, n, limit)
	}
	if reports == 0 {
		t.Error("no report sent")
	}
	// Reports after end are ignored.
	p.report(1, 1)
	if k := sink.kinds[len(sink.kinds)-1]; k != "end stopped" {
		t.Errorf("report after end: %q", k)
	}
	var nilProgress *progress
	nilProgress.report(1, 2) // a nil reporter is a no-op
	nilProgress.end("x")
	nilProgress.settle()
}
