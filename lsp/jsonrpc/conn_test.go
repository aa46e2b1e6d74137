package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestFrameReader(t *testing.T) {
	type step struct {
		body    string // expected body ("" with err set)
		skipped bool   // garbage reported with the body
		err     error  // errFraming, errTooLarge, io.EOF, io.ErrUnexpectedEOF
	}
	tests := []struct {
		name  string
		input string
		steps []step
	}{
		{"two messages", "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]", []step{{body: "{}"}, {body: "[1]"}, {err: io.EOF}}},
		{"content type and case", "content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}", []step{{body: "{}"}, {err: io.EOF}}},
		{"LF only", "Content-Length: 2\n\n{}", []step{{body: "{}"}, {err: io.EOF}}},
		{"blank lines between messages", "\r\n\r\nContent-Length: 2\r\n\r\n{}", []step{{body: "{}"}, {err: io.EOF}}},
		{"zero length", "Content-Length: 0\r\n\r\n", []step{{body: ""}, {err: io.EOF}}},
		{"missing length", "Content-Type: x\r\n\r\nContent-Length: 2\r\n\r\n{}", []step{{err: errFraming}, {body: "{}"}, {err: io.EOF}}},
		{"bad length", "Content-Length: abc\r\n\r\nContent-Length: 2\r\n\r\n{}", []step{{err: errFraming}, {body: "{}"}, {err: io.EOF}}},
		{"garbage line then a header", "hello world\r\nContent-Length: 2\r\n\r\n{}", []step{{body: "{}", skipped: true}, {err: io.EOF}}},
		{"body without header runs into the next", `{"a":1}Content-Length: 2` + "\r\n\r\n{}", []step{{body: "{}", skipped: true}, {err: io.EOF}}},
		{"header cut by EOF", "Content-Length: 2\r\n", []step{{err: io.ErrUnexpectedEOF}}},
		{"body cut by EOF", "Content-Length: 10\r\n\r\n{}", []step{{err: io.ErrUnexpectedEOF}}},
		{"too large", "Content-Length: 100\r\n\r\n" + strings.Repeat("x", 100) + "Content-Length: 2\r\n\r\n{}", []step{{err: errTooLarge}, {body: "{}"}, {err: io.EOF}}},
		{"overlong header line", strings.Repeat("h", 9000) + "\r\nContent-Length: 2\r\n\r\n{}", []step{{body: "{}", skipped: true}, {err: io.EOF}}},
		{"huge length value", "Content-Length: 99999999999999999999\r\n\r\n", []step{{err: errFraming}, {err: io.EOF}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fr := newFrameReader(strings.NewReader(tc.input), 64)
			for i, st := range tc.steps {
				body, skipped, err := fr.next()
				if st.err != nil {
					if !errors.Is(err, st.err) {
						t.Fatalf("step %d: err %v, want %v", i, err, st.err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if string(body) != st.body || (skipped != "") != st.skipped {
					t.Fatalf("step %d: body %q skipped %q, want %q skipped=%v", i, body, skipped, st.body, st.skipped)
				}
			}
		})
	}
}

func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("x\r\nContent-Length: 1\r\n\r\n1Content-Length: -1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, input []byte) {
		fr := newFrameReader(bytes.NewReader(input), 1<<16)
		for i := 0; i < len(input)+2; i++ {
			body, _, err := fr.next()
			if err != nil {
				if errors.Is(err, errFraming) || errors.Is(err, errTooLarge) {
					continue
				}
				return // end of input
			}
			if len(body) > len(input) {
				t.Fatalf("body longer than the input")
			}
		}
		t.Fatalf("reader did not reach the end of %d bytes", len(input))
	})
}

func TestParseID(t *testing.T) {
	tests := []struct {
		raw, key string
		ok       bool
	}{
		{"1", "n:1", true},
		{"-0", "n:0", true},
		{"007", "n:7", true},
		{"7.0", "n:7", true},
		{"1099511627776", "n:1099511627776", true},
		{"123456789012345678901234567890", "n:123456789012345678901234567890", true},
		{`"abc"`, "s:abc", true},
		{`"7"`, "s:7", true},
		{`"\u00e9"`, "s:é", true},
		{"7.5", "", false},
		{"1e3", "", false},
		{"7.", "", false},
		{"-", "", false},
		{"null", "", false},
		{"true", "", false},
		{"{}", "", false},
		{"[1]", "", false},
	}
	for _, tc := range tests {
		id, err := parseID(json.RawMessage(tc.raw))
		if (err == nil) != tc.ok {
			t.Errorf("parseID(%s): err %v, want ok=%v", tc.raw, err, tc.ok)
			continue
		}
		if tc.ok {
			if id.key != tc.key || id.String() != tc.raw {
				t.Errorf("parseID(%s) = key %q raw %q, want %q", tc.raw, id.key, id.String(), tc.key)
			}
		} else if !errors.Is(err, errBadID) {
			t.Errorf("parseID(%s): %v is not errBadID", tc.raw, err)
		}
	}
}

func TestDecodeMessage(t *testing.T) {
	tests := []struct {
		body   string
		kind   msgKind
		method string
		code   ErrorCode
		id     string
	}{
		{`{"jsonrpc":"2.0","id":3,"method":"m","params":{}}`, kindRequest, "m", 0, "3"},
		{`{"jsonrpc":"2.0","method":"n"}`, kindNotification, "n", 0, ""},
		{`{"jsonrpc":"2.0","id":"x","result":null}`, kindResponse, "", 0, `"x"`},
		{`{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"m"}}`, kindResponse, "", 0, "4"},
		{`{"jsonrpc":"2.0","id":4}`, 0, "", CodeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","id":4,"result":1,"error":{"code":1,"message":""}}`, 0, "", CodeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","id":5,"method":""}`, 0, "", CodeInvalidRequest, "5"},
		{`{"jsonrpc":"2.0","id":5,"method":"m","params":"s"}`, 0, "", CodeInvalidParams, "5"},
		{`{"jsonrpc":"2.0","method":"m","params":true}`, 0, "", CodeInvalidRequest, ""},
		{`{"jsonrpc":2,"id":6,"method":"m"}`, 0, "", CodeInvalidRequest, "6"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"m"}`, 0, "", CodeInvalidRequest, ""},
		{`not json`, 0, "", CodeParseError, ""},
		{``, 0, "", CodeParseError, ""},
		{`"string"`, 0, "", CodeInvalidRequest, ""},
	}
	for _, tc := range tests {
		in, id, rerr := decodeMessage([]byte(tc.body))
		switch {
		case tc.code != 0:
			if rerr == nil || rerr.Code != tc.code {
				t.Errorf("%s: error %v, want code %d", tc.body, rerr, tc.code)
			}
		case rerr != nil:
			t.Errorf("%s: unexpected error %v", tc.body, rerr)
		case in.kind != tc.kind || in.method != tc.method:
			t.Errorf("%s: kind %d method %q", tc.body, in.kind, in.method)
		}
		if id.String() != tc.id {
			t.Errorf("%s: id %q, want %q", tc.body, id.String(), tc.id)
		}
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"m","params":{}}`,
		`{"jsonrpc":"2.0","id":"x","result":null}`,
		`{"jsonrpc":"2.0","id":1e999,"method":"m"}`,
		`[{"jsonrpc":"2.0"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		in, _, rerr := decodeMessage(body)
		if rerr != nil {
			if rerr.Message == "" {
				t.Fatal("error without message")
			}
			return
		}
		if in.kind == 0 {
			t.Fatal("no kind")
		}
		if in.kind != kindNotification && in.id.key == "" {
			t.Fatal("request or response without id")
		}
		// Replies echo the id: it must marshal to valid JSON.
		raw, err := json.Marshal(wireResponse{JSONRPC: "2.0", ID: in.id, Result: json.RawMessage("null")})
		if err != nil || !json.Valid(raw) {
			t.Fatalf("reply does not marshal: %v", err)
		}
	})
}
