package graph

import (
	"reflect"
	"strings"
	"testing"
)

func TestParamSteps(t *testing.T) {
	for _, tt := range []struct {
		step    string
		m       string
		a, k    int
		isParam bool
	}{
		{ParamStep(1), "", -1, 1, true},
		{ArgStep("route", 2, 0), "route", 2, 0, true},
		{ArgStep("", 0, 3), "", 0, 3, true},
		{CallStep("m", 0), "", 0, 0, false},
		{"req", "", 0, 0, false},
		{"m(x)(1)", "", 0, 0, false},
	} {
		m, a, k, ok := ParseParamStep(tt.step)
		if ok != tt.isParam || ok && (m != tt.m || a != tt.a || k != tt.k) {
			t.Errorf("ParseParamStep(%q) = %q %d %d %v, want %q %d %d %v", tt.step, m, a, k, ok, tt.m, tt.a, tt.k, tt.isParam)
		}
		if _, _, isCall := ParseCallStep(tt.step); isCall && tt.isParam {
			t.Errorf("%q reads as a call step too", tt.step)
		}
	}
}

func TestTypeScriptSignatureText(t *testing.T) {
	params := []struct {
		sig, name string
		a         int
		want      string
	}{
		{"route(path: string, handler: Handler): App", "route", 1, "Handler"},
		{"export const define = <E extends Env = any>(h: H<E, (x: number) => void>, n?: number) => h", "define", 0, "H<E, (x: number) => void>"},
		{"function each(this: Ctx, ...handlers: AnyHandler[]): void", "each", 3, "AnyHandler"},
		{"on(name: 'a,b' | \"c)\", cb: (c: Context) => void = noop)", "on", 1, "(c: Context) => void"},
		{"route(path: string): App", "route", 1, ""},
		{"routes(handler: Handler)", "route", 0, ""},
		{"get(path: P, ...handlers: [H<E, P> & M1, H<E2>]): App", "get", 2, "H<E2>"},
		{"get(path: P, ...handlers: [H<E, P> & M1, H<E2>]): App", "get", 1, "H<E, P> & M1"},
		{"get(path: P, ...handlers: [H<E, P> & M1, H<E2>]): App", "get", 3, ""},
		{"use(...handlers: Array<Middleware<E>>): App", "use", 4, "Middleware<E>"},
	}
	for _, tt := range params {
		got, ok := "", false
		if list, found := tsParamList(tt.sig, tt.name); found {
			got, ok = tsListParam(list, tt.a)
		}
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("parameter %d of %q in %q = %q %v, want %q", tt.a, tt.name, tt.sig, got, ok, tt.want)
		}
	}
	fns := []struct {
		text string
		want []string
	}{
		{"(c: Context<E, P>, next: Next) => Promise<R | void>", []string{"Context<E, P>", "Next"}},
		{"<T>(this: Window, v?: T) => T", []string{"T"}},
		{"(a, b: number) => void", []string{"", "number"}},
		{"Handler<E> | Middleware<E>", nil},
		{"(Context)", nil},
	}
	for _, tt := range fns {
		got, ok := tsFnParams(tt.text)
		if !reflect.DeepEqual(got, tt.want) || ok != (tt.want != nil) {
			t.Errorf("tsFnParams(%q) = %q %v, want %q", tt.text, got, ok, tt.want)
		}
	}
	aliases := []struct{ sig, want string }{
		{"export type H< E extends Env = any, R = Map<string, number>, > = Handler<E, R> | Middleware<E>", "Handler<E, R> | Middleware<E>"},
		{"type Next = () => Promise<void>", "() => Promise<void>"},
		{"export interface Handler { (c: Context): void }", ""},
		{"const type = 1", ""},
	}
	for _, tt := range aliases {
		got, ok := tsAliasOf(tt.sig)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("tsAliasOf(%q) = %q %v, want %q", tt.sig, got, ok, tt.want)
		}
	}
	if got := splitTopLevel(" A<B, C> | (x: D | E) => F |'|'| G ", '|'); !reflect.DeepEqual(got, []string{"A<B, C>", "(x: D | E) => F", "'|'", "G"}) {
		t.Errorf("splitTopLevel = %q", got)
	}
}

// TestTypeScriptCallSignatures reads overloads the grammar cannot: a
// generic call signature after a line ending in a type name reads as that
// type's type arguments.
func TestTypeScriptCallSignatures(t *testing.T) {
	body := `{
  // app.get(handler)
  <P extends string = "/(x)">(handler: H<P>): B
  /* app.get(path, (handler)) */
  <P, M1 extends H = H>(
    path: P,
    ...handlers: [H<P> & M1, H<P>]
  ): Base<
    E, (x: number) => void
  >
  (c: Context, next: Next): void;
  name: string
  method(a: A): void
  readonly fn: (b: B) => void
} trailing (x: X): Y`
	want := []string{"handler: H<P>", "path: P, ...handlers: [H<P> & M1, H<P>]", "c: Context, next: Next"}
	if got := tsCallSignatures([]byte(body)); !reflect.DeepEqual(got, want) {
		t.Errorf("tsCallSignatures = %q, want %q", got, want)
	}
	if got := tsCallSignatures([]byte("{ (a: A): void")); got != nil {
		t.Errorf("an unclosed body gives %q", got)
	}
}

// FuzzTypeScriptSignatureText: the readers of signature text never panic
// and only return text taken from their input.
func FuzzTypeScriptSignatureText(f *testing.F) {
	for _, s := range []string{"route(path: string, ...h: [A & B, C]): App", "type H<E = X<Y>> = ((c: C) => D) | E", "{ <P>(a: A): B\n <Q>(b: B): C }", "f(a: '(', b: `)`)", "=>)(<>"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, a int) {
		if a < 0 || a > 8 {
			return
		}
		if list, ok := tsParamList(s, "route"); ok {
			tsListParam(list, a)
		}
		tsFnParams(s)
		tsAliasOf(s)
		tsCallSignatures([]byte(s))
		for _, p := range splitTopLevel(s, '|') {
			if !strings.Contains(s, p) {
				t.Fatalf("%q is not part of %q", p, s)
			}
		}
	})
}
