package mcp

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// validArgs builds an arguments object that satisfies every required
// property of a tool's input schema.
func validArgs(schema map[string]any) map[string]any {
	props := schema["properties"].(map[string]any)
	out := map[string]any{}
	req, _ := schema["required"].([]string)
	for _, name := range req {
		out[name] = validValue(props[name].(map[string]any))
	}
	return out
}

func validValue(p map[string]any) any {
	switch p["type"] {
	case "string":
		if e, ok := p["enum"].([]string); ok {
			return e[0]
		}
		return "x"
	case "integer", "number":
		if lo, ok := p["minimum"].(float64); ok {
			return lo
		}
		return 1
	case "boolean":
		return true
	case "array":
		return []string{"x"}
	}
	panic("no valid value for " + p["type"].(string))
}

func wrongValue(p map[string]any) any {
	if p["type"] == "string" {
		return 5
	}
	return "x"
}

func decodeInto(t *testing.T, tl *tool, args map[string]any) (reflect.Value, error) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	v := reflect.New(tl.args)
	return v.Elem(), decodeArgs(raw, v.Interface())
}

func errField(err error) string {
	var ae *argError
	if errors.As(err, &ae) {
		return ae.field
	}
	return "(not an argument error: " + err.Error() + ")"
}

// TestSchemasMatchDecoder checks, for every tool, that the inputSchema an
// agent reads and the decoder that checks its call agree: the same
// properties, required ones, types, enums, bounds and defaults, and no
// other property.
func TestSchemasMatchDecoder(t *testing.T) {
	for _, tl := range toolTable() {
		t.Run(tl.name, func(t *testing.T) {
			schema := inputSchema(tl.args)
			props := schema["properties"].(map[string]any)
			var names []string
			for name := range props {
				names = append(names, name)
			}
			sort.Strings(names)
			base := validArgs(schema)
			fv, err := decodeInto(t, &tl, base)
			if err != nil {
				t.Fatalf("valid arguments %v rejected: %v", base, err)
			}
			// Defaults are applied exactly as the schema says.
			for _, f := range argFields(tl.args) {
				p := props[f.name].(map[string]any)
				if d, ok := p["default"]; ok {
					if _, given := base[f.name]; !given {
						got := fv.Field(f.index).Interface()
						if reflect.ValueOf(got).Convert(reflect.TypeOf(d)).Interface() != d {
							t.Errorf("%s: default %v in the schema, decoder set %v", f.name, d, got)
						}
					}
				}
			}
			req, _ := schema["required"].([]string)
			for _, name := range req {
				args := clone(base)
				delete(args, name)
				if _, err := decodeInto(t, &tl, args); err == nil || errField(err) != name {
					t.Errorf("without required %s: %v", name, err)
				}
			}
			for _, name := range names {
				p := props[name].(map[string]any)
				args := clone(base)
				args[name] = wrongValue(p)
				if _, err := decodeInto(t, &tl, args); err == nil || errField(err) != name {
					t.Errorf("%s of the wrong type: %v", name, err)
				}
				args[name] = validValue(p)
				if _, err := decodeInto(t, &tl, args); err != nil {
					t.Errorf("%s = %v rejected: %v", name, args[name], err)
				}
				if _, ok := p["enum"]; ok {
					args[name] = "not-a-member"
					if _, err := decodeInto(t, &tl, args); err == nil || errField(err) != name {
						t.Errorf("%s outside its enum: %v", name, err)
					}
				}
				if lo, ok := p["minimum"].(float64); ok {
					args[name] = lo - 1
					if _, err := decodeInto(t, &tl, args); err == nil || errField(err) != name {
						t.Errorf("%s below its minimum: %v", name, err)
					}
				}
				if hi, ok := p["maximum"].(float64); ok {
					args[name] = hi + 1
					if _, err := decodeInto(t, &tl, args); err == nil || errField(err) != name {
						t.Errorf("%s above its maximum: %v", name, err)
					}
				}
				if n, ok := p["maxLength"].(int); ok {
					args[name] = strings.Repeat("é", n+1)
					if _, err := decodeInto(t, &tl, args); err == nil || errField(err) != name {
						t.Errorf("%s beyond its maxLength: %v", name, err)
					}
				}
			}
			if schema["additionalProperties"] != false {
				t.Errorf("additionalProperties: %v", schema["additionalProperties"])
			}
			args := clone(base)
			args["notAnArgument"] = 1
			if _, err := decodeInto(t, &tl, args); err == nil || errField(err) != "notAnArgument" {
				t.Errorf("unknown property: %v", err)
			}
			// null stands for an omitted optional argument.
			for _, name := range names {
				if _, required := base[name]; required {
					continue
				}
				args := clone(base)
				args[name] = nil
				if _, err := decodeInto(t, &tl, args); err != nil {
					t.Errorf("%s: null rejected: %v", name, err)
				}
			}
			// The output schema builds, and describes an object.
			if out := outputSchema(tl.result); out["type"] != "object" {
				t.Errorf("outputSchema: %v", out)
			}
		})
	}
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestDecodeArgsForms(t *testing.T) {
	for _, tc := range []struct {
		raw     string
		wantErr string
		k       int
	}{
		{``, "query: required", 0},
		{`null`, "query: required", 0},
		{`{"query":"x"}`, "", 10},
		{`{"query":"x","k":7.0}`, "", 7},
		{`{"query":"x","k":1e1}`, "", 10},
		{`{"query":"x","k":7.5}`, "k: must be an integer, got 7.5", 0},
		{`{"query":"x","k":1e300}`, "k: must be an integer", 0},
		{`{"query":"x","k":"7"}`, "k: must be an integer, got a string", 0},
		{`{"query":"x","k":null}`, "", 10},
		{`{"query":""}`, "query: must not be empty", 0},
		{`{"query":"x","paths":"a/**"}`, "paths: must be an array of strings, got a string", 0},
		{`{"query":"x","paths":[null]}`, "paths[0]: must be a string, got null", 0},
		{`[1,2]`, "arguments: must be an object", 0},
		{`{"query":`, "arguments: not a valid JSON object", 0},
		{`{"query":"x","minScore":2}`, "minScore: must be between 0 and 1, got 2", 0},
		{"{\"query\":\"\xff\xfe\"}", "", 10}, // invalid UTF-8 decodes to U+FFFD
	} {
		var a QueryContextArgs
		err := decodeArgs(json.RawMessage(tc.raw), &a)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.raw, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want %q", tc.raw, err, tc.wantErr)
		case tc.wantErr == "" && a.K != tc.k:
			t.Errorf("%s: k = %d, want %d", tc.raw, a.K, tc.k)
		}
	}
}

func TestParseLines(t *testing.T) {
	for _, tc := range []struct {
		in         string
		start, end int
		ok         bool
	}{
		{"", 1, 1 << 30, true},
		{"10-40", 10, 40, true},
		{" 7 - 9 ", 7, 9, true},
		{"12", 12, 12, true},
		{"0-3", 0, 0, false},
		{"5-4", 0, 0, false},
		{"a-b", 0, 0, false},
		{"1-2-3", 0, 0, false},
		{"3x", 0, 0, false},
		{"-4", 0, 0, false},
	} {
		a, b, err := parseLines("lines", tc.in)
		if (err == nil) != tc.ok || (tc.ok && (a != tc.start || b != tc.end)) {
			t.Errorf("parseLines(%q) = %d, %d, %v", tc.in, a, b, err)
		}
		if err != nil && errField(err) != "lines" {
			t.Errorf("parseLines(%q): error names %q", tc.in, errField(err))
		}
	}
}

func TestNegotiate(t *testing.T) {
	for _, v := range ProtocolVersions {
		if negotiate(v) != v {
			t.Errorf("negotiate(%s) = %s", v, negotiate(v))
		}
	}
	for _, v := range []string{"", "2023-01-01", "2099-12-31", "latest"} {
		if negotiate(v) != LatestProtocolVersion {
			t.Errorf("negotiate(%q) = %s, want the latest", v, negotiate(v))
		}
	}
}

func TestParseMessage(t *testing.T) {
	for _, tc := range []struct {
		raw      string
		code     int
		method   string
		notify   bool
		response bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, "ping", false, false},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}`, 0, "tools/list", false, false},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, "notifications/initialized", true, false},
		{`{"jsonrpc":"2.0","id":-3,"method":"ping","params":null}`, 0, "ping", false, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0, "", false, true},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, 0, "", false, true},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, codeInvalidRequest, "", false, false},
		{`{"id":1,"method":"ping"}`, codeInvalidRequest, "", false, false},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, codeInvalidRequest, "", false, false},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, codeInvalidRequest, "", false, false},
		{`{"jsonrpc":"2.0","id":1}`, codeInvalidRequest, "", false, false},
		{`{"jsonrpc":"2.0","id":1,"method":7}`, codeInvalidRequest, "", false, false},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":3}`, codeInvalidRequest, "", false, false},
		{`"text"`, codeInvalidRequest, "", false, false},
		{`null`, codeInvalidRequest, "", false, false},
	} {
		in, _, rerr := parseMessage(json.RawMessage(tc.raw))
		switch {
		case tc.code != 0:
			if rerr == nil || rerr.Code != tc.code {
				t.Errorf("%s: error %v, want code %d", tc.raw, rerr, tc.code)
			}
		case rerr != nil:
			t.Errorf("%s: %v", tc.raw, rerr)
		case in.isResponse != tc.response || (!tc.response && (in.method != tc.method || (in.id == nil) != tc.notify)):
			t.Errorf("%s: parsed %+v", tc.raw, in)
		}
	}
}

func TestLineReader(t *testing.T) {
	big := strings.Repeat("x", maxMessage+10)
	in := "first\r\n\n" + big + "\nsecond\nlast-without-newline"
	lr := newLineReader(strings.NewReader(in))
	var got []string
	for {
		b, err := lr.next()
		if errors.Is(err, errTooLarge) {
			got = append(got, "<too large>")
			continue
		}
		if err != nil {
			break
		}
		got = append(got, string(b))
	}
	want := []string{"first", "", "<too large>", "second", "last-without-newline"}
	if !reflectEqual(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}

func reflectEqual(a, b []string) bool { return reflect.DeepEqual(a, b) }

func TestFencedAndSpan(t *testing.T) {
	if got := fenced("a ``` b", "go"); !strings.HasPrefix(got, "````go\n") || !strings.HasSuffix(got, "\n````\n") {
		t.Errorf("fence around backticks: %q", got)
	}
	for _, tc := range []struct {
		l    Location
		want string
	}{
		{Location{Path: "a.go", StartLine: 3, EndLine: 9}, "a.go:3-9"},
		{Location{Path: "a.go", StartLine: 3, EndLine: 3}, "a.go:3"},
		{Location{Path: "a.go"}, "a.go"},
	} {
		if got := span(tc.l); got != tc.want {
			t.Errorf("span(%+v) = %q, want %q", tc.l, got, tc.want)
		}
	}
}

func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
		"\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := newLineReader(strings.NewReader(string(data)))
		for {
			line, err := lr.next()
			if err != nil {
				break
			}
			if json.Valid(line) {
				in, id, rerr := parseMessage(line)
				if rerr != nil && id == nil {
					t.Fatalf("error without an id to answer: %q", line)
				}
				if rerr == nil && !in.isResponse && in.method == "" {
					t.Fatalf("request without a method: %q", line)
				}
			}
		}
	})
}

func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"query":"x","k":3,"paths":["a/**"]}`, `{"file":"a.go","lines":"1-3","budget":500,"format":"xml"}`,
		`{"symbol":"Parse","line":-1}`, `{"jobId":null}`, `{"sync":false,"paths":[]}`, `[]`, `"x"`,
	} {
		f.Add([]byte(s))
	}
	table := toolTable()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tl := range table {
			v := reflect.New(tl.args)
			if err := decodeArgs(data, v.Interface()); err != nil {
				var ae *argError
				if !errors.As(err, &ae) {
					t.Fatalf("%s: error %v is not an argument error", tl.name, err)
				}
				continue
			}
			// What decodes once decodes again to the same value.
			again, err := json.Marshal(v.Interface())
			if err != nil {
				t.Fatal(err)
			}
			w := reflect.New(tl.args)
			if err := decodeArgs(again, w.Interface()); err != nil {
				t.Fatalf("%s: %s decoded, its re-encoding %s does not: %v", tl.name, data, again, err)
			}
		}
	})
}
