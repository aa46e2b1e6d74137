package graph

import "fmt"

// DebugSite is temporary: it prints how the call at a 0-based line named
// name in p resolves, step by step.
func (r *Resolver) DebugSite(p string, line int, name string) {
	g, err := r.graphFull(p)
	if err != nil || g == nil {
		fmt.Println("no graph", err)
		return
	}
	for _, c := range g.Calls {
		if c.Site.Start.Line != line || c.Name != name {
			continue
		}
		s := Site{Path: p, Lang: g.Lang, Package: g.Package, Module: g.Module, Call: c}
		fmt.Printf("call %+v\n", c.Recv)
		t, conf, ok, err := r.debugRecv(&s)
		fmt.Printf("recvType: %+v conf=%v ok=%v err=%v\n", t, conf, ok, err)
		ms, err := r.resolveSite(&s)
		for _, m := range ms {
			fmt.Printf("  -> %s:%s %v %s\n", m.Def.Path, m.Def.QualifiedName(), m.Confidence, m.Reason)
		}
	}
}

func (r *Resolver) debugRecv(s *Site) (typeRef, Confidence, bool, error) {
	c := &s.Call
	var t typeRef
	var conf Confidence = Exact
	var ok bool
	var err error
	switch c.Recv.Kind {
	case RecvFree:
		t, conf, ok, err = r.freeRoot(s)
		fmt.Printf("  free root %s -> %+v %v %v\n", c.Recv.Root, t, ok, err)
	case RecvVar:
		te := c.Recv.Type
		if te.Call {
			t, conf, ok, err = r.callResult(te, s)
			fmt.Printf("  call result %s -> %+v %v %v\n", te.Name, t, ok, err)
		} else {
			t = typeRef{name: te.Name, module: te.Module, lang: s.Lang, from: s.Path, elem: te.Elem}
			if t.module == "" {
				t.module = ownModule(s)
			}
			ok = true
		}
	case RecvSelf:
		t = typeRef{name: c.Recv.Type.Name, module: ownModule(s), lang: s.Lang, from: s.Path}
		ok = true
	}
	if !ok {
		return t, conf, ok, err
	}
	for _, f := range c.Recv.Fields {
		var ft typeRef
		var fc Confidence
		if m, k, isCall := ParseCallStep(f); isCall {
			ft, fc, ok, err = r.methodResult(t, m, k)
		} else {
			ft, fc, ok, err = r.fieldType(t, f, 0)
		}
		fmt.Printf("  step %s on %s(%s) -> %+v %v %v\n", f, t.name, t.module, ft, ok, err)
		if !ok {
			return ft, fc, ok, err
		}
		t, conf = ft, min(conf, fc)
	}
	return t, conf, true, nil
}
