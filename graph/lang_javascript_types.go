package graph

import (
	"bytes"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// TypeScript callbacks typed by their context (callbacks.go): a function
// that declares no type for a parameter takes it from the function type
// expected where it is written — a declared variable's type, the declared
// result of the function returning it, the declared parameter of the
// function or method it is passed to, or the call signatures of the
// interface a field called as a method is declared with.

// jsCallbackParam types parameter k of function fn when fn is a function
// expression: a type read here (rt, for a function type written out) or a
// chain resolved later from viaAt (ch).
func (x *extractor) jsCallbackParam(fn *sitter.Node, k int) (rt rawType, ch chain, viaAt uint32, ok bool) {
	switch fn.Type() {
	case "arrow_function", "function_expression", "function", "generator_function":
	default:
		return rawType{}, chain{}, 0, false
	}
	n, p := fn, fn.Parent()
	for p != nil && p.Type() == "parenthesized_expression" {
		n, p = p, p.Parent()
	}
	if p == nil {
		return rawType{}, chain{}, 0, false
	}
	switch p.Type() {
	case "variable_declarator":
		if v := p.ChildByFieldName("value"); v != nil && v.Equal(n) {
			rt, ch, ok = x.jsExpectedParam(p.ChildByFieldName("type"), k)
		}
	case "return_statement":
		if f := jsEnclosingFunction(p); f != nil {
			rt, ch, ok = x.jsExpectedParam(f.ChildByFieldName("return_type"), k)
		}
	case "arrow_function":
		if b := p.ChildByFieldName("body"); b != nil && b.Equal(n) {
			rt, ch, ok = x.jsExpectedParam(p.ChildByFieldName("return_type"), k)
		}
	case "arguments":
		call := p.Parent()
		if call == nil || call.Type() != "call_expression" {
			return rawType{}, chain{}, 0, false
		}
		a, i := -1, 0
		for _, arg := range NamedChildren(p) {
			if arg.Equal(n) {
				a = i
				break
			}
			if arg.Type() != "comment" {
				i++
			}
		}
		ch, ok = x.jsArgChain(call, a, k)
		viaAt = call.StartByte()
	}
	return rt, ch, viaAt, ok
}

// jsArgChain is the chain typing parameter k of the function passed as
// argument a of call: define(…) or obj.route(…).
func (x *extractor) jsArgChain(call *sitter.Node, a, k int) (chain, bool) {
	if a < 0 {
		return chain{}, false
	}
	c := x.chainOf(call, 0)
	if n := len(c.fields); n > 0 {
		m, res, ok := ParseCallStep(c.fields[n-1])
		if !ok || m == "" || res != 0 {
			return chain{}, false
		}
		c.fields = append(append([]string(nil), c.fields[:n-1]...), ArgStep(m, a, k))
		return c, true
	}
	fn := call.ChildByFieldName("function")
	if c.root == rootType && c.typ.call && fn != nil && fn.Type() == "identifier" {
		return chain{root: rootIdent, ident: x.text(fn), fields: []string{ArgStep("", a, k)}}, true
	}
	return chain{}, false
}

// jsExpectedParam types parameter k of a function of the type annotation
// t: read from a function type written out, else through the named type.
func (x *extractor) jsExpectedParam(t *sitter.Node, k int) (rawType, chain, bool) {
	if t != nil && t.Type() == "type_annotation" {
		t = firstNamedChild(t)
	}
	if t == nil {
		return rawType{}, chain{}, false
	}
	if t.Type() == "function_type" {
		i := 0
		for _, p := range NamedChildren(t.ChildByFieldName("parameters")) {
			if !jsParamNode(p) {
				continue
			}
			if i == k {
				rt := x.rawTypeOf(p.ChildByFieldName("type"))
				return rt, chain{}, rt.known()
			}
			i++
		}
		return rawType{}, chain{}, false
	}
	rt := x.rawTypeOf(t)
	if !rt.known() || rt.call || rt.elem {
		return rawType{}, chain{}, false
	}
	return rawType{}, chain{root: rootType, typ: rt, fields: []string{ParamStep(k)}}, true
}

// jsParamNode reports a node of a parameter list that is a parameter (not
// a comment).
func jsParamNode(p *sitter.Node) bool {
	switch p.Type() {
	case "identifier", "required_parameter", "optional_parameter", "assignment_pattern", "rest_pattern", "object_pattern", "array_pattern":
		return true
	}
	return false
}

// jsEnclosingFunction returns the function a return statement returns from.
func jsEnclosingFunction(n *sitter.Node) *sitter.Node {
	for p := n.Parent(); p != nil; p = p.Parent() {
		switch p.Type() {
		case "function_declaration", "function_expression", "function", "arrow_function", "method_definition",
			"generator_function", "generator_function_declaration":
			return p
		}
	}
	return nil
}

// tsParamList reads the parameter list of function name from its
// signature ("route(path: string, handler: Handler): App", "const define
// = <T>(h: Handler<T>) => …"), without its parentheses.
func tsParamList(sig, name string) (string, bool) {
	i := wordIndex(sig, name)
	if i < 0 {
		return "", false
	}
	rest := sig[i+len(name):]
	open := -1
	scanTopLevel(rest, func(j int, c byte) bool {
		if c == '(' {
			open = j
			return false
		}
		return true
	})
	if open < 0 {
		return "", false
	}
	end := closingIndex(rest, open)
	if end < 0 {
		return "", false
	}
	return rest[open+1 : end], true
}

// tsListParam reads the declared type of the parameter receiving argument
// a from a parameter list; a rest parameter gives every argument from its
// place on the element type of its array (...handlers: H[]) or its
// tuple's element at that place (...handlers: [H & M1, H]).
func tsListParam(list string, a int) (string, bool) {
	i := 0
	for _, p := range splitTopLevel(list, ',') {
		if strings.HasPrefix(p, "this:") || strings.HasPrefix(p, "this :") {
			continue
		}
		spread := strings.HasPrefix(p, "...")
		if i == a || spread && a > i {
			t := tsParamText(p)
			if spread {
				t = tsRestElem(t, a-i)
			}
			return t, t != ""
		}
		i++
	}
	return "", false
}

// tsRestElem is the type of element j of a rest parameter's type t.
func tsRestElem(t string, j int) string {
	switch {
	case strings.HasSuffix(t, "[]"):
		return strings.TrimSuffix(t, "[]")
	case strings.HasPrefix(t, "Array<") && closingIndex(t, len("Array")) == len(t)-1:
		return t[len("Array<") : len(t)-1]
	case strings.HasPrefix(t, "[") && closingIndex(t, 0) == len(t)-1:
		if elems := splitTopLevel(t[1:len(t)-1], ','); j < len(elems) {
			return strings.TrimPrefix(elems[j], "...")
		}
	}
	return ""
}

// tsParamText is the type text of one parameter ("c?: Context = d" →
// "Context").
func tsParamText(p string) string {
	colon, eq := -1, -1
	scanTopLevel(p, func(j int, c byte) bool {
		switch {
		case c == ':' && colon < 0:
			colon = j
		case c == '=' && colon >= 0 && (j+1 >= len(p) || p[j+1] != '>'):
			eq = j
			return false
		}
		return true
	})
	if colon < 0 {
		return ""
	}
	t := p[colon+1:]
	if eq > 0 {
		t = p[colon+1 : eq]
	}
	return strings.TrimSpace(t)
}

// tsFnParams reads the parameter types of a function type written out,
// "<T>(c: Context<T>, next: Next) => R"; ok is false for other types.
func tsFnParams(text string) ([]string, bool) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "<") {
		end := closingIndex(t, 0)
		if end < 0 {
			return nil, false
		}
		t = strings.TrimSpace(t[end+1:])
	}
	if !strings.HasPrefix(t, "(") {
		return nil, false
	}
	end := closingIndex(t, 0)
	if end < 0 || !strings.HasPrefix(strings.TrimSpace(t[end+1:]), "=>") {
		return nil, false
	}
	var out []string
	for _, p := range splitTopLevel(t[1:end], ',') {
		if !strings.HasPrefix(p, "this:") {
			out = append(out, tsParamText(p))
		}
	}
	return out, true
}

// tsAliasOf reads what a type alias declaration stands for:
// "export type H<E = any> = Handler<E> | Middleware<E>" → "Handler<E> |
// Middleware<E>".
func tsAliasOf(sig string) (string, bool) {
	i := wordIndex(sig, "type")
	if i < 0 {
		return "", false
	}
	for _, w := range strings.Fields(sig[:i]) {
		if w != "export" && w != "declare" && w != "default" {
			return "", false
		}
	}
	t := strings.TrimLeft(sig[i+len("type"):], " \t")
	j := 0
	for j < len(t) && (isIdentByte(t[j]) || t[j] == '$') {
		j++
	}
	if j == 0 {
		return "", false
	}
	t = strings.TrimLeft(t[j:], " \t")
	if strings.HasPrefix(t, "<") {
		end := closingIndex(t, 0)
		if end < 0 {
			return "", false
		}
		t = strings.TrimLeft(t[end+1:], " \t")
	}
	if !strings.HasPrefix(t, "=") || strings.HasPrefix(t, "=>") {
		return "", false
	}
	return strings.TrimSpace(t[1:]), true
}

// wordIndex is the index of the first occurrence of word in s that is not
// part of a longer identifier, or -1.
func wordIndex(s, word string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], word)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(word)
		if (i == 0 || !isIdentByte(s[i-1])) && (end == len(s) || !isIdentByte(s[end])) {
			return i
		}
		off = i + 1
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// maxInterfaceBytes bounds the text read for an interface's body.
const maxInterfaceBytes = 1 << 18

// tsCallSignatures reads the parameter lists of the call signatures of
// the interface body src starts with ("{ (handler: H): App; <P>(path: P,
// handler: H): App }" gives "handler: H" and "path: P, handler: H"). It
// reads the text, not the tree: the grammar reads "): B" followed by a
// line starting "<P>(" as the generic type B<P> and gives up on the rest
// of the file, which is how routers declare their overloads.
func tsCallSignatures(src []byte) []string {
	if len(src) > maxInterfaceBytes {
		src = src[:maxInterfaceBytes]
	}
	text := blankedBlock(src)
	end := closingIndex(text, 0)
	if !strings.HasPrefix(text, "{") || end < 0 {
		return nil
	}
	body := text[1:end]
	var out []string
	fresh := true // at the start of a member
	scanTopLevel(body, func(i int, c byte) bool {
		switch {
		case c == ';' || c == ',' || c == '\n':
			fresh = true
		case c == ' ' || c == '\t' || c == '\r':
		case fresh && (c == '<' || c == '('):
			fresh = false
			open := i
			if c == '<' {
				g := closingIndex(body, i)
				if g < 0 {
					return false
				}
				rest := body[g+1:]
				trimmed := strings.TrimLeft(rest, " \t\r\n")
				if !strings.HasPrefix(trimmed, "(") {
					return true
				}
				open = g + 1 + len(rest) - len(trimmed)
			}
			if end := closingIndex(body, open); end > 0 {
				out = append(out, strings.Join(strings.Fields(body[open+1:end]), " "))
			}
		default:
			fresh = false
		}
		return true
	})
	return out
}

// blankedBlock returns the block src starts with, up to its closing brace
// (all of src when it does not close), with its comments replaced by
// spaces (offsets and lines kept); braces in strings and comments do not
// count.
func blankedBlock(src []byte) string {
	b := make([]byte, 0, 1024)
	depth := 0
	var quote byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(src) {
				b = append(b, c)
				i++
				c = src[i]
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			end := len(src)
			if src[i+1] == '/' {
				if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
					end = i + j
				}
			} else if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
				end = i + 2 + j + 2
			}
			for ; i < end; i++ {
				if src[i] == '\n' {
					b = append(b, '\n')
				} else {
					b = append(b, ' ')
				}
			}
			i--
			continue
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return string(append(b, c))
			}
		}
		b = append(b, c)
	}
	return string(b)
}
