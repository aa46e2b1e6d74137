package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/context-ls/context-ls/service"
)

// progressInterval is the minimum time between two $/progress reports of
// one operation (about ten a second).
const progressInterval = 100 * time.Millisecond

// Work-done progress values. The protocol package's structs drop a zero
// percentage (omitempty), and a begin without a percentage shows an
// indeterminate bar; these keep it.
type (
	progressBegin struct {
		Kind        string `json:"kind"`
		Title       string `json:"title"`
		Cancellable bool   `json:"cancellable"`
		Message     string `json:"message,omitempty"`
		Percentage  uint32 `json:"percentage"`
	}
	progressReport struct {
		Kind       string `json:"kind"`
		Message    string `json:"message,omitempty"`
		Percentage uint32 `json:"percentage"`
	}
	progressEnd struct {
		Kind    string `json:"kind"`
		Message string `json:"message,omitempty"`
	}
	progressParams struct {
		Token json.RawMessage `json:"token"`
		Value any             `json:"value"`
	}
	workDoneProgressCreateParams struct {
		Token json.RawMessage `json:"token"`
	}
)

// progressSink is what a reporter needs from the server.
type progressSink interface {
	Call(ctx context.Context, method string, params any) (json.RawMessage, error)
	Notify(method string, params any) error
}

// progress reports one long operation to the client: an optional
// window/workDoneProgress/create, then $/progress begin, throttled
// reports and end, all sent from one goroutine in that order. A nil
// *progress is a valid no-op reporter.
type progress struct {
	sink  progressSink
	token json.RawMessage
	title string
	unit  string

	create bool // the token is the server's (created on the client first)

	mu       sync.Mutex
	reported bool
	done     int
	total    int
	msg      string // the latest report's message, if it had one
	pending  bool   // a report not yet sent
	endReq   bool
	endMsg   string
	autoEnd  bool // end once done reaches total
	stopped  bool // end sent or the operation abandoned
	wake     chan struct{}
	finished chan struct{}
}

// startProgress starts a reporter. With create set the token is first
// created on the client (and the reporter goes quiet if that fails);
// otherwise token is one the client supplied.
func startProgress(ctx context.Context, sink progressSink, token json.RawMessage, create bool, title, unit string, timeout time.Duration) *progress {
	p := &progress{
		sink: sink, token: token, title: title, unit: unit, create: create,
		wake: make(chan struct{}, 1), finished: make(chan struct{}),
	}
	go p.run(ctx, create, timeout)
	return p
}

// report records done of total; the latest value is sent at most once per
// progressInterval.
func (p *progress) report(done, total int) { p.reportMessage(done, total, "") }

// reportMessage is report with the message the client shows ("" says
// done/total in the reporter's unit).
func (p *progress) reportMessage(done, total int, msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.msg = msg
	if p.stopped || p.endReq {
		p.mu.Unlock()
		return
	}
	p.reported, p.pending = true, true
	p.done, p.total = done, total
	if p.autoEnd && total > 0 && done >= total {
		p.endReq = true
		p.endMsg = p.summary()
	}
	p.mu.Unlock()
	p.poke()
}

// end finishes the operation with a message. Reports after end are ignored.
func (p *progress) end(msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if !p.stopped && !p.endReq {
		p.endReq, p.endMsg = true, msg
	}
	p.mu.Unlock()
	p.poke()
}

// settle is called when the operation's synchronous part has returned: the
// progress ends now unless the last report says work remains, in which
// case it ends when a report reaches the total.
func (p *progress) settle() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.reported && p.total > 0 && p.done < p.total {
		p.autoEnd = true
		p.mu.Unlock()
		return
	}
	msg := ""
	if p.reported {
		msg = p.summary()
	}
	p.mu.Unlock()
	p.end(msg)
}

// fn returns the reporter as a function of files done of total.
func (p *progress) fn() func(done, total int) {
	return func(done, total int) { p.report(done, total) }
}

// serviceFn returns the reporter as a function of the service's progress:
// files done of total set the percentage, and the message says what the
// service's Summary says (files, bytes, rate, time left: the same line
// the CLI prints and the reindex command reports).
func (p *progress) serviceFn() func(service.Progress) {
	return func(sp service.Progress) { p.reportMessage(sp.Done, sp.Total, sp.Message) }
}

// wait blocks until the reporter's goroutine has stopped or ctx is done.
func (p *progress) wait(ctx context.Context) {
	if p == nil {
		return
	}
	select {
	case <-p.finished:
	case <-ctx.Done():
	}
}

func (p *progress) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// summary formats "n/m unit"; p.mu must be held.
func (p *progress) summary() string {
	if p.msg != "" {
		return p.msg
	}
	if p.total <= 0 {
		return fmt.Sprintf("%d %s", p.done, p.unit)
	}
	return fmt.Sprintf("%d/%d %s", p.done, p.total, p.unit)
}

func (p *progress) percentage() uint32 {
	if p.total <= 0 || p.done <= 0 {
		return 0
	}
	if p.done >= p.total {
		return 100
	}
	return uint32(int64(p.done) * 100 / int64(p.total))
}

func (p *progress) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}

func (p *progress) run(ctx context.Context, create bool, timeout time.Duration) {
	defer close(p.finished)
	defer p.stop()
	if create {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		_, err := p.sink.Call(cctx, "window/workDoneProgress/create", workDoneProgressCreateParams{Token: p.token})
		cancel()
		if err != nil {
			return // the client refused the token: report nothing
		}
	}
	if p.sink.Notify("$/progress", progressParams{Token: p.token, Value: progressBegin{Kind: "begin", Title: p.title}}) != nil {
		return
	}
	var last time.Time
	var timer *time.Timer
	for {
		p.mu.Lock()
		endReq, endMsg := p.endReq, p.endMsg
		pending := p.pending
		var value progressReport
		if pending && !endReq {
			if wait := progressInterval - time.Since(last); !last.IsZero() && wait > 0 {
				p.mu.Unlock()
				if timer == nil {
					timer = time.NewTimer(wait)
				} else {
					timer.Reset(wait)
				}
				select {
				case <-timer.C:
				case <-p.wake:
					timer.Stop() // Go ≥1.23 timers: no stale value to drain
				case <-ctx.Done():
					return
				}
				continue
			}
			p.pending = false
			value = progressReport{Kind: "report", Message: p.summary(), Percentage: p.percentage()}
		}
		p.mu.Unlock()
		switch {
		case endReq:
			_ = p.sink.Notify("$/progress", progressParams{Token: p.token, Value: progressEnd{Kind: "end", Message: endMsg}})
			return
		case pending:
			if p.sink.Notify("$/progress", progressParams{Token: p.token, Value: value}) != nil {
				return
			}
			last = time.Now()
		default:
			select {
			case <-p.wake:
			case <-ctx.Done():
				return
			}
		}
	}
}

// progressTokens numbers the tokens the server creates.
type progressTokens struct {
	mu   sync.Mutex
	next int
}

func (t *progressTokens) newToken(kind string) json.RawMessage {
	t.mu.Lock()
	t.next++
	n := t.next
	t.mu.Unlock()
	return json.RawMessage(strconv.Quote("context-ls/" + kind + "/" + strconv.Itoa(n)))
}
