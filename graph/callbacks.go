package graph

import (
	"strconv"
	"strings"
)

// Callback parameters typed by their context. A function passed where a
// function of a declared type is expected takes its parameters' types
// from that type, as a type checker infers them:
//
//	const h: Handler = (c) => c.req.header("x")          // ParamStep
//	const mw = (): Handler => async (c, next) => { … }  // ParamStep
//	define((c) => …)                                     // ArgStep("", a, k)
//	app.route("/", (c) => …)                             // ArgStep("route", a, k)
//
// The language reads the declared types from signatures (langRules
// paramList, listParam, fnParams, aliasOf); a union of function types
// types a parameter when its members agree on it, an intersection by its
// first member that does.

// maxCallbackDepth bounds the type aliases followed for one parameter
// (type A = B; type B = A).
const maxCallbackDepth = 6

// fnTypeParam resolves the type of parameter k of a function of type t
// (a type alias of a function type, or of a union of such).
func (r *Resolver) fnTypeParam(t typeRef, k, depth int) (typeRef, Confidence, bool, error) {
	if depth > maxCallbackDepth || rulesOf(t.lang).aliasOf == nil {
		return typeRef{}, 0, false, nil
	}
	key := memoKey("fnparam", t.key(), strconv.Itoa(k), strconv.Itoa(depth))
	return memoizedType(r, key, func() (typeRef, Confidence, bool, error) {
		decls, err := r.findTypes(t)
		if err != nil {
			return typeRef{}, 0, false, err
		}
		for _, td := range decls {
			text, ok := rulesOf(td.def.Lang).aliasOf(td.def.Signature)
			if !ok {
				continue
			}
			if pt, conf, ok, err := r.fnParam(text, td.def, td.g, k, depth); err != nil || ok {
				return pt, conf, ok, err
			}
		}
		return typeRef{}, 0, false, nil
	})
}

// fnParam resolves the type of parameter k of a function whose type is
// written text in definition d's file.
func (r *Resolver) fnParam(text string, d Def, dg *FileGraph, k, depth int) (typeRef, Confidence, bool, error) {
	rules := rulesOf(d.Lang)
	if depth > maxCallbackDepth || rules.fnParams == nil {
		return typeRef{}, 0, false, nil
	}
	if params, ok := rules.fnParams(text); ok {
		// Before the union: "(c: C) => A | B" is one function type.
		if k >= len(params) {
			return typeRef{}, 0, false, nil
		}
		rt, ok := parseTypeText(params[k])
		if !ok {
			return typeRef{}, 0, false, nil
		}
		return qualifyRaw(rt, d, dg), Exact, true, nil
	}
	if members := splitTopLevel(text, '|'); len(members) > 1 {
		var first typeRef
		conf := Exact
		n := 0
		for _, m := range members {
			if m == "undefined" || m == "null" {
				continue // handler?: H | undefined
			}
			t, c, ok, err := r.fnParam(m, d, dg, k, depth)
			if err != nil || !ok {
				return typeRef{}, 0, false, err
			}
			if n > 0 && t.key() != first.key() {
				return typeRef{}, 0, false, nil // the members disagree
			}
			first, conf, n = t, min(conf, c), n+1
		}
		return first, conf, n > 0, nil
	}
	if members := splitTopLevel(text, '&'); len(members) > 1 {
		// H<E> & M1: the first member that types it.
		for _, m := range members {
			if t, c, ok, err := r.fnParam(m, d, dg, k, depth); err != nil || ok {
				return t, c, ok, err
			}
		}
		return typeRef{}, 0, false, nil
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "(") && closingIndex(t, 0) == len(t)-1 {
		return r.fnParam(t[1:len(t)-1], d, dg, k, depth) // ((c: C) => void) | …
	}
	rt, ok := parseTypeName(text)
	if !ok || rt.elem {
		return typeRef{}, 0, false, nil
	}
	return r.fnTypeParam(qualifyRaw(rt, d, dg), k, depth+1)
}

// argParam resolves the type of parameter k of the function passed as
// argument a to function or method d.
func (r *Resolver) argParam(d Def, a, k int) (typeRef, Confidence, bool, error) {
	rules := rulesOf(d.Lang)
	if rules.paramList == nil {
		return typeRef{}, 0, false, nil
	}
	list, ok := rules.paramList(d.Signature, d.Name)
	if !ok {
		return typeRef{}, 0, false, nil
	}
	dg, err := r.graph(d.Path)
	if err != nil || dg == nil {
		return typeRef{}, 0, false, err
	}
	return r.listArgParam(list, d, dg, a, k)
}

// listArgParam is argParam of a parameter list written in d's file.
func (r *Resolver) listArgParam(list string, d Def, dg *FileGraph, a, k int) (typeRef, Confidence, bool, error) {
	text, ok := rulesOf(d.Lang).listParam(list, a)
	if !ok {
		return typeRef{}, 0, false, nil
	}
	return r.fnParam(text, d, dg, k, 0)
}

// methodArgParam is argParam of method m of type t, or of the call
// signatures of the type of its field m (app.get declared get:
// HandlerInterface, an interface of call signatures): those that take a
// function at argument a must agree.
func (r *Resolver) methodArgParam(t typeRef, m string, a, k int) (typeRef, Confidence, bool, error) {
	d, ok, err := r.findMethod(t, m, 0)
	if err != nil {
		return typeRef{}, 0, false, err
	}
	if ok {
		return r.argParam(d, a, k)
	}
	ft, conf, ok, err := r.fieldType(t, m, 0)
	if err != nil || !ok || rulesOf(ft.lang).listParam == nil {
		return typeRef{}, 0, false, err
	}
	decls, err := r.findTypes(ft)
	if err != nil {
		return typeRef{}, 0, false, err
	}
	var found typeRef
	n := 0
	for _, td := range decls {
		for _, decl := range td.g.Types {
			if decl.Name != td.def.Name {
				continue
			}
			for _, list := range decl.Calls {
				pt, c, ok, err := r.listArgParam(list, td.def, td.g, a, k)
				if err != nil {
					return typeRef{}, 0, false, err
				}
				if !ok {
					continue // this signature takes no function there
				}
				if n > 0 && pt.key() != found.key() {
					return typeRef{}, 0, false, nil
				}
				found, conf, n = pt, min(conf, c), n+1
			}
		}
	}
	return found, conf, n > 0, nil
}

// calleeArgParam is argParam of the function te names from site s.
func (r *Resolver) calleeArgParam(te TypeExpr, s *Site, a, k int) (typeRef, Confidence, bool, error) {
	defs, err := r.visibleCallees(te, s)
	if err != nil {
		return typeRef{}, 0, false, err
	}
	var found []typeRef
	conf := Exact
	for _, cd := range defs {
		if isTypeKind(cd.def.Kind) {
			continue
		}
		t, c, ok, err := r.argParam(cd.def, a, k)
		if err != nil {
			return typeRef{}, 0, false, err
		}
		if ok {
			found, conf = append(found, t), min(conf, c)
		}
	}
	switch len(found) {
	case 0:
		return typeRef{}, 0, false, nil
	case 1:
		return found[0], conf, true, nil
	}
	return found[0], min(conf, Likely), true, nil
}
