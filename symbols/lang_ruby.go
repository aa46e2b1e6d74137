package symbols

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

var rubySpec = &langSpec{
	scopes: map[string]bool{"program": true, "module": true, "class": true, "body_statement": true, "singleton_class": true},
	prune:  map[string]string{"method": "", "singleton_method": "", "assignment": "right"},
	query: `
(class name: (_) @name) @class
(module name: (_) @name) @module
(method name: (_) @name) @method
(singleton_method name: (_) @name) @method
(assignment left: (constant) @name) @const
`,
	prepare: func(x *extractor, d *def) bool {
		if d.kind == KindConst && !x.atFileLevel(d.node) && x.parentType(d.node) != "body_statement" {
			return false
		}
		if n := d.nameNode; n.Type() == "scope_resolution" {
			// class A::B::C → name C in container A.B
			var scopes []string
			for i := 0; n.Type() == "scope_resolution" && i < 16; i++ {
				if s := n.ChildByFieldName("scope"); s != nil {
					scopes = append(scopes, strings.ReplaceAll(x.text(s), "::", "."))
				}
				n = n.ChildByFieldName("name")
				if n == nil {
					return false
				}
			}
			d.nameNode, d.name = n, x.text(n)
			d.hasOverride = true
			d.containerOverride = strings.Join(scopes, ".")
		}
		return true
	},
	finish: finishRuby,
	sigEnd: rubySigEnd,
	doc: docRules{
		line:     []string{"#"},
		notLine:  []string{"#!"},
		comments: map[string]bool{"comment": true},
	},
}

func finishRuby(x *extractor, d *def) {
	p := x.parentDef(d)
	if d.kind == KindMethod && d.node.Type() == "method" {
		switch {
		case p == nil || (p.kind != KindClass && p.kind != KindModule):
			d.kind = KindFunction
		case d.name == "initialize":
			d.kind = KindConstructor
		}
	}
	d.exported = (p == nil || p.exported) && !(p != nil && d.kind != KindConst && x.rubyPrivate(d))
}

// rubyPrivate reports whether method d is private or protected: wrapped
// in a private/protected call, named by "private :name", or after a bare
// private/protected line in its class body.
func (x *extractor) rubyPrivate(d *def) bool {
	if d.kind == KindClass || d.kind == KindModule {
		return false
	}
	if args := d.node.Parent(); args != nil && args.Type() == "argument_list" {
		if call := args.Parent(); call != nil && call.Type() == "call" {
			m := x.text(call.ChildByFieldName("method"))
			return m == "private" || m == "protected"
		}
	}
	body := d.node.Parent()
	if body == nil || body.Type() != "body_statement" {
		return false
	}
	if x.access == nil {
		x.access = make(map[uint32][]accessMark)
	}
	key := body.StartByte()
	marks, ok := x.access[key]
	if !ok {
		c := sitter.NewTreeCursor(body)
		for more := c.GoToFirstChild(); more; more = c.GoToNextSibling() {
			n := c.CurrentNode()
			switch n.Type() {
			case "identifier":
				if s := x.text(n); s == "private" || s == "protected" || s == "public" {
					marks = append(marks, accessMark{at: n.StartByte(), level: s})
				}
			case "call":
				m := x.text(n.ChildByFieldName("method"))
				if m != "private" && m != "protected" && m != "private_class_method" {
					continue
				}
				args := n.ChildByFieldName("arguments")
				if args == nil {
					continue
				}
				count := int(args.NamedChildCount())
				for i := 0; i < count; i++ {
					if a := args.NamedChild(i); a.Type() == "simple_symbol" {
						// Applies wherever the method is defined.
						marks = append(marks, accessMark{at: ^uint32(0), level: "private " + strings.TrimPrefix(x.text(a), ":")})
					}
				}
			}
		}
		c.Close()
		x.access[key] = marks
	}
	level := "public"
	start := d.node.StartByte()
	for _, m := range marks {
		if strings.HasPrefix(m.level, "private ") {
			if strings.TrimPrefix(m.level, "private ") == d.name {
				return true
			}
			continue
		}
		if m.at < start {
			level = m.level
		}
	}
	return level != "public"
}

// rubySigEnd ends a signature after the name, parameters or superclass.
func rubySigEnd(x *extractor, d *def) int {
	end := -1
	for _, f := range []string{"name", "parameters", "superclass"} {
		if n := d.node.ChildByFieldName(f); n != nil && int(n.EndByte()) > end {
			end = int(n.EndByte())
		}
	}
	if d.kind == KindConst {
		return -1
	}
	return end
}
