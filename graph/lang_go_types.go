package graph

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go method resolution. A call x.M() refers to one method object: the
// method M of x's static type, found the way the compiler finds it — the
// type's own method, else the shallowest method promoted through embedded
// fields; on an interface, the method of the interface that declares M
// (itself or one it embeds, standard library interfaces included). A
// definition is a caller's target when it is that object, or corresponds
// to it through interface satisfaction as gopls's call hierarchy decides:
//
//   - a concrete method T.M is reached through workspace interface I's M
//     when T implements I;
//   - through a standard library interface E's M (io.Closer, fmt.Stringer
//     …) when T implements E and the call is in T's package, or the call's
//     receiver is a workspace interface embedding E that T implements;
//   - an interface method I.M is reached by calls of M on a concrete type
//     that implements I, and through another interface whose method set
//     contains I's or is contained in it.

// stdInterfaceText lists the standard library interfaces a workspace type
// commonly implements or embeds: "pkg.Name: methods; embedded interfaces".
// Signatures are written as in the package (unqualified names are the
// package's own types).
const stdInterfaceText = `
.error: Error() string
fmt.Stringer: String() string
fmt.GoStringer: GoString() string
fmt.Formatter: Format(f State, verb rune)
io.Reader: Read(p []byte) (n int, err error)
io.Writer: Write(p []byte) (n int, err error)
io.Closer: Close() error
io.Seeker: Seek(offset int64, whence int) (int64, error)
io.ReaderAt: ReadAt(p []byte, off int64) (n int, err error)
io.WriterAt: WriteAt(p []byte, off int64) (n int, err error)
io.ReaderFrom: ReadFrom(r Reader) (n int64, err error)
io.WriterTo: WriteTo(w Writer) (n int64, err error)
io.ByteReader: ReadByte() (byte, error)
io.ByteScanner: UnreadByte() error; io.ByteReader
io.ByteWriter: WriteByte(c byte) error
io.RuneReader: ReadRune() (r rune, size int, err error)
io.RuneScanner: UnreadRune() error; io.RuneReader
io.StringWriter: WriteString(s string) (n int, err error)
io.ReadCloser: io.Reader io.Closer
io.WriteCloser: io.Writer io.Closer
io.ReadWriter: io.Reader io.Writer
io.ReadWriteCloser: io.Reader io.Writer io.Closer
io.ReadSeeker: io.Reader io.Seeker
io.ReadSeekCloser: io.Reader io.Seeker io.Closer
io.WriteSeeker: io.Writer io.Seeker
io.ReadWriteSeeker: io.Reader io.Writer io.Seeker
sort.Interface: Len() int; Less(i, j int) bool; Swap(i, j int)
container/heap.Interface: Push(x any); Pop() any; sort.Interface
context.Context: Deadline() (deadline time.Time, ok bool); Done() <-chan struct{}; Err() error; Value(key any) any
sync.Locker: Lock(); Unlock()
hash.Hash: Sum(b []byte) []byte; Reset(); Size() int; BlockSize() int; io.Writer
hash.Hash32: Sum32() uint32; hash.Hash
hash.Hash64: Sum64() uint64; hash.Hash
encoding.BinaryMarshaler: MarshalBinary() (data []byte, err error)
encoding.BinaryUnmarshaler: UnmarshalBinary(data []byte) error
encoding.TextMarshaler: MarshalText() (text []byte, err error)
encoding.TextUnmarshaler: UnmarshalText(text []byte) error
encoding/json.Marshaler: MarshalJSON() ([]byte, error)
encoding/json.Unmarshaler: UnmarshalJSON([]byte) error
flag.Value: String() string; Set(string) error
io/fs.FileInfo: Name() string; Size() int64; Mode() FileMode; ModTime() time.Time; IsDir() bool; Sys() any
io/fs.DirEntry: Name() string; IsDir() bool; Type() FileMode; Info() (FileInfo, error)
io/fs.File: Stat() (FileInfo, error); Read([]byte) (int, error); Close() error
os.FileInfo: io/fs.FileInfo
net/http.Handler: ServeHTTP(ResponseWriter, *Request)
`

// stdConcreteText lists standard library concrete types that workspace
// types embed (their methods are promoted), in the same form.
const stdConcreteText = `
os.File: Chdir() error; Chmod(mode FileMode) error; Chown(uid, gid int) error; Close() error; Fd() uintptr; Name() string; Read(b []byte) (n int, err error); ReadAt(b []byte, off int64) (n int, err error); ReadDir(n int) ([]DirEntry, error); ReadFrom(r io.Reader) (n int64, err error); Readdir(n int) ([]FileInfo, error); Readdirnames(n int) (names []string, err error); Seek(offset int64, whence int) (ret int64, err error); SetDeadline(t time.Time) error; SetReadDeadline(t time.Time) error; SetWriteDeadline(t time.Time) error; Stat() (FileInfo, error); Sync() error; SyscallConn() (syscall.RawConn, error); Truncate(size int64) error; Write(b []byte) (n int, err error); WriteAt(b []byte, off int64) (n int, err error); WriteString(s string) (n int, err error); WriteTo(w io.Writer) (n int64, err error)
bytes.Buffer: Available() int; AvailableBuffer() []byte; Bytes() []byte; Cap() int; Grow(n int); Len() int; Next(n int) []byte; Read(p []byte) (n int, err error); ReadByte() (byte, error); ReadBytes(delim byte) (line []byte, err error); ReadFrom(r io.Reader) (n int64, err error); ReadRune() (r rune, size int, err error); ReadString(delim byte) (line string, err error); Reset(); String() string; Truncate(n int); UnreadByte() error; UnreadRune() error; Write(p []byte) (n int, err error); WriteByte(c byte) error; WriteRune(r rune) (n int, err error); WriteString(s string) (n int, err error); WriteTo(w io.Writer) (n int64, err error)
strings.Builder: Cap() int; Grow(n int); Len() int; Reset(); String() string; Write(p []byte) (int, error); WriteByte(c byte) error; WriteRune(r rune) (int, error); WriteString(s string) (int, error)
bufio.Reader: Buffered() int; Discard(n int) (discarded int, err error); Peek(n int) ([]byte, error); Read(p []byte) (n int, err error); ReadByte() (byte, error); ReadBytes(delim byte) ([]byte, error); ReadLine() (line []byte, isPrefix bool, err error); ReadRune() (r rune, size int, err error); ReadSlice(delim byte) (line []byte, err error); ReadString(delim byte) (string, error); Reset(r io.Reader); Size() int; UnreadByte() error; UnreadRune() error; WriteTo(w io.Writer) (n int64, err error)
bufio.Writer: Available() int; AvailableBuffer() []byte; Buffered() int; Flush() error; ReadFrom(r io.Reader) (n int64, err error); Reset(w io.Writer); Size() int; Write(p []byte) (nn int, err error); WriteByte(c byte) error; WriteRune(r rune) (size int, err error); WriteString(s string) (int, error)
sync.Mutex: Lock(); TryLock() bool; Unlock()
sync.RWMutex: Lock(); RLock(); RLocker() Locker; RUnlock(); TryLock() bool; TryRLock() bool; Unlock()
sync.WaitGroup: Add(delta int); Done(); Go(f func()); Wait()
sync.Once: Do(f func())
`

// stdType is a standard library interface: its own methods (name →
// signature) and the interfaces it embeds.
type stdType struct {
	pkg     string
	methods map[string]string
	embeds  []string
	// concrete marks a struct type (stdConcreteText), not an interface.
	concrete bool
}

// stdTypes maps "pkg.Name" (".error" for the predeclared error) to the
// standard library interfaces and concrete types above.
var stdTypes = func() map[string]*stdType {
	out := map[string]*stdType{}
	concrete := strings.Count(stdInterfaceText, "\n")
	for n, line := range strings.Split(stdInterfaceText+stdConcreteText, "\n") {
		key, rest, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		dot := strings.LastIndexByte(key, '.')
		si := &stdType{pkg: key[:dot], methods: map[string]string{}, concrete: n >= concrete}
		for _, part := range strings.Split(rest, "; ") {
			if i := strings.IndexByte(part, '('); i > 0 && IsIdentifier(part[:i]) {
				si.methods[part[:i]] = part
				continue
			}
			si.embeds = append(si.embeds, strings.Fields(part)...)
		}
		out[key] = si
	}
	return out
}()

// stdKeys are the keys of stdTypes in order.
var stdKeys = func() []string {
	keys := make([]string, 0, len(stdTypes))
	for k := range stdTypes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}()

// stdKey returns the key of the standard library type (interface or
// concrete, see stdTypes) t names, if it is one.
func stdKey(t typeRef) (string, bool) {
	if !rulesOf(t.lang).stdTypes || t.elem {
		return "", false
	}
	key := t.module + "." + t.name
	if t.name == "error" {
		key = ".error"
	}
	_, ok := stdTypes[key]
	return key, ok
}

// stdOf returns the key of the standard library type t names when the
// workspace declares no such type (the standard library itself can be the
// workspace: then its declarations answer).
func (r *Resolver) stdOf(t typeRef) (string, bool, error) {
	key, ok := stdKey(t)
	if !ok || isBuiltinType(t) {
		return key, ok, nil
	}
	decls, err := r.findTypes(t)
	return key, err == nil && len(decls) == 0, err
}

// stdWalk visits standard type key and the interfaces it embeds, breadth
// first, until visit returns false.
func stdWalk(key string, visit func(k string, st *stdType) bool) {
	for depth, queue := 0, []string{key}; depth < 4 && len(queue) > 0; depth++ {
		var next []string
		for _, k := range queue {
			st := stdTypes[k]
			if st == nil {
				continue
			}
			if !visit(k, st) {
				return
			}
			next = append(next, st.embeds...)
		}
		queue = next
	}
}

// stdMethod returns the interface (itself or one it embeds) declaring
// method m of standard type key, and the method's signature.
func stdMethod(key, m string) (decl, sig string, ok bool) {
	stdWalk(key, func(k string, st *stdType) bool {
		sig, ok = st.methods[m]
		decl = k
		return !ok
	})
	if !ok {
		return "", "", false
	}
	return decl, sig, true
}

// stdMethodSet returns every method of standard type key with its
// signature.
func stdMethodSet(key string) map[string]string {
	out := map[string]string{}
	stdWalk(key, func(_ string, st *stdType) bool {
		for m, sig := range st.methods {
			if _, dup := out[m]; !dup {
				out[m] = sig
			}
		}
		return true
	})
	return out
}

// goExported reports whether a Go name is visible outside its package.
func goExported(name string) bool {
	r, _ := utf8.DecodeRuneInString(name)
	return unicode.IsUpper(r)
}

// methodObj is the method a call x.M() refers to on x's static type.
type methodObj struct {
	found bool
	// def is the workspace method (of a concrete type or an interface);
	// unset for a standard library interface's method.
	def Def
	// iface marks an interface method (def's type is an interface, or std
	// is set).
	iface bool
	// std is the standard library interface declaring the method.
	std string
	// sig is the method's signature.
	sig string
}

// same reports whether o is definition d.
func (o methodObj) same(d Def) bool {
	return o.found && o.std == "" && o.def.Path == d.Path && o.def.Ord == d.Ord
}

// goMethod resolves method m on type t: the type's own method, else the
// shallowest one promoted through embedded fields (breadth first, as the
// compiler does); on an interface, the method of the interface that
// declares it.
func (r *Resolver) goMethod(t typeRef, m string) (methodObj, error) {
	return memoized(r, memoKey("gomethod", t.key(), m), func() (methodObj, error) {
		level := []typeRef{t}
		seen := map[string]bool{}
		for depth := 0; depth < 5 && len(level) > 0; depth++ {
			var next []typeRef
			for _, u := range level {
				if seen[u.key()] {
					continue
				}
				seen[u.key()] = true
				obj, bases, err := r.goOwnMethod(u, m)
				if err != nil || obj.found {
					return obj, err
				}
				next = append(next, bases...)
			}
			level = next
		}
		return methodObj{}, nil
	})
}

// goOwnMethod returns method m declared by type u itself (for an
// interface: by it or an interface it embeds), else u's embedded types,
// the next level of promotion.
func (r *Resolver) goOwnMethod(u typeRef, m string) (methodObj, []typeRef, error) {
	if key, ok, err := r.stdOf(u); err != nil || ok {
		if decl, sig, found := stdMethod(key, m); found {
			return methodObj{found: true, iface: !stdTypes[key].concrete, std: decl, sig: sig}, nil, nil
		}
		return methodObj{}, nil, err
	}
	var bases []typeRef
	if isAnonStruct(u.name) {
		fields, g, err := r.anonFields(u)
		for _, f := range fields {
			if f.Embedded {
				bases = append(bases, qualify(f.Type, g))
			}
		}
		return methodObj{}, bases, err
	}
	decls, err := r.findTypes(u)
	if err != nil {
		return methodObj{}, nil, err
	}
	for _, td := range decls {
		if r.isInterface(td) {
			obj, err := r.goInterfaceMethod(td, m, 0)
			if err != nil || obj.found {
				return obj, nil, err
			}
			continue
		}
		d, ok, err := r.declaredMethod(td, m)
		if err != nil {
			return methodObj{}, nil, err
		}
		if ok {
			return methodObj{found: true, def: d, sig: d.Signature}, nil, nil
		}
		bases = append(bases, r.basesOf(td)...)
	}
	return methodObj{}, bases, nil
}

// declaredMethod returns the method m declared with td's type as receiver
// (or in its body: interfaces, classes).
func (r *Resolver) declaredMethod(td typeDecl, m string) (Def, bool, error) {
	defs, err := r.definitionsWhere(m, r.inDecls([]typeDecl{td}))
	if err != nil {
		return Def{}, false, err
	}
	for _, o := range defs {
		if !isMember(o) || typeName(o) != td.def.Name || family(o.Lang) != family(td.def.Lang) {
			continue
		}
		og, err := r.graph(o.Path)
		if err != nil {
			return Def{}, false, err
		}
		if og != nil && og.Module == td.g.Module {
			return o, true, nil
		}
	}
	return Def{}, false, nil
}

// goInterfaceMethod finds the interface declaring method m among td and
// the interfaces it embeds.
func (r *Resolver) goInterfaceMethod(td typeDecl, m string, depth int) (methodObj, error) {
	d, ok, err := r.declaredMethod(td, m)
	if err != nil || ok {
		return methodObj{found: ok, def: d, iface: true, sig: d.Signature}, err
	}
	if depth > 3 {
		return methodObj{}, nil
	}
	for _, b := range r.basesOf(td) {
		if key, ok, err := r.stdOf(b); err != nil || ok {
			if decl, sig, found := stdMethod(key, m); found && !stdTypes[key].concrete {
				return methodObj{found: true, iface: true, std: decl, sig: sig}, nil
			}
			if err != nil {
				return methodObj{}, err
			}
			continue
		}
		decls, err := r.findTypes(b)
		if err != nil {
			return methodObj{}, err
		}
		for _, bd := range decls {
			if !r.isInterface(bd) {
				continue
			}
			if obj, err := r.goInterfaceMethod(bd, m, depth+1); err != nil || obj.found {
				return obj, err
			}
		}
	}
	return methodObj{}, nil
}

// goMethodSet returns the methods (name → signature) of an interface:
// a workspace declaration td, or the standard interface std.
func (r *Resolver) goMethodSet(td *typeDecl, std string) (map[string]string, error) {
	if std != "" {
		return stdMethodSet(std), nil
	}
	return r.interfaceMethods(*td, 0)
}

// goImplements reports whether type t has every method of an interface
// (a workspace declaration iface, or the standard interface std) with a
// compatible signature.
func (r *Resolver) goImplements(t typeRef, iface *typeDecl, std string) (bool, error) {
	id := std
	if iface != nil {
		id = iface.def.Path + "#" + strconv.Itoa(iface.def.Ord)
	}
	return memoized(r, memoKey("goimpl", t.key(), id), func() (bool, error) {
		methods, err := r.goMethodSet(iface, std)
		if err != nil || len(methods) == 0 {
			return false, err
		}
		var wild map[string]bool // type parameters, compared as any type
		for m, sig := range methods {
			obj, err := r.goMethod(t, m)
			if err != nil || !obj.found {
				return false, err
			}
			if sameSignature("go", sig, obj.sig, m) {
				continue
			}
			if iface != nil && obj.std == "" {
				if wild == nil {
					if wild, err = r.goIfaceTypeParams(*iface, 0); err != nil {
						return false, err
					}
				}
				if goSameGeneric(sig, obj.sig, m, wild) {
					continue
				}
			}
			// Types may differ in spelling only: an alias, or another
			// package's name for the same type.
			var want methodObj
			if iface != nil {
				if want, err = r.goInterfaceMethod(*iface, m, 0); err != nil {
					return false, err
				}
			}
			if want.std != "" || !want.found || obj.std != "" {
				return false, nil
			}
			if ok, err := r.goSameTypes(want.def.Path, sig, obj.def.Path, obj.sig, m); err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	})
}

// goSameGeneric compares an interface method's signature with a method's
// with the type parameters of the interfaces (wild) and of the method's
// receiver taken for any type.
func goSameGeneric(a, b, name string, wild map[string]bool) bool {
	all := map[string]bool{}
	for k := range wild {
		all[k] = true
	}
	for _, p := range goTypeParams(b) {
		all[p] = true
	}
	if len(all) == 0 {
		return false
	}
	pa, ra, ok1 := goSigTypes(a, name)
	pb, rb, ok2 := goSigTypes(b, name)
	return ok1 && ok2 && goWildTypeParams(pa, all) == goWildTypeParams(pb, all) && goWildTypeParams(ra, all) == goWildTypeParams(rb, all)
}

// goIfaceTypeParams collects the type parameters of a generic interface
// and of the interfaces it embeds.
func (r *Resolver) goIfaceTypeParams(td typeDecl, depth int) (map[string]bool, error) {
	out := map[string]bool{}
	for _, p := range goTypeParams(td.def.Signature) {
		out[p] = true
	}
	if depth > 3 {
		return out, nil
	}
	for _, b := range r.basesOf(td) {
		decls, err := r.findTypes(b)
		if err != nil {
			return nil, err
		}
		for _, bd := range decls {
			more, err := r.goIfaceTypeParams(bd, depth+1)
			if err != nil {
				return nil, err
			}
			for k := range more {
				out[k] = true
			}
		}
	}
	return out, nil
}

// goSameTypes compares two Go signatures of method m read in files pa and
// pb type by type, resolving the names that are spelled differently
// (aliases, package qualifiers) to their declarations.
func (r *Resolver) goSameTypes(pa, a, pb, b, m string) (bool, error) {
	paramsA, resultsA, ok1 := goSigParts(a, m)
	paramsB, resultsB, ok2 := goSigParts(b, m)
	if !ok1 || !ok2 || len(paramsA) != len(paramsB) || len(resultsA) != len(resultsB) {
		return false, nil
	}
	ta, tb := append(paramsA, resultsA...), append(paramsB, resultsB...)
	for i := range ta {
		if unqualify(ta[i]) == unqualify(tb[i]) {
			continue
		}
		da, err := r.goTypeDecl(pa, ta[i])
		if err != nil {
			return false, err
		}
		db, err := r.goTypeDecl(pb, tb[i])
		if err != nil || da == "" || da != db {
			return false, err
		}
	}
	return true, nil
}

// goTypeDecl identifies the declaration a Go type written in file p
// names (aliases followed), with its pointer and container marks, or "".
func (r *Resolver) goTypeDecl(p, typ string) (string, error) {
	marks := ""
	for _, pre := range []string{"*", "[]", "..."} {
		for strings.HasPrefix(typ, pre) {
			marks += pre
			typ = typ[len(pre):]
		}
	}
	rt, ok := parseTypeName(typ)
	if !ok {
		return "", nil
	}
	g, err := r.graph(p)
	if err != nil || g == nil {
		return "", err
	}
	t := typeRef{name: rt.name, module: g.Module, lang: g.Lang, from: p}
	if rt.qual != "" {
		t.module = rt.qual
		for _, im := range g.Imports {
			if im.Alias == rt.qual || (im.Alias == "" && defaultBinding(g.Lang, im.Path) == rt.qual) {
				t.module = im.Module
			}
		}
	}
	decls, err := r.findTypes(t)
	if err != nil || len(decls) == 0 {
		return "", err
	}
	return marks + decls[0].def.Path + "#" + strconv.Itoa(decls[0].def.Ord), nil
}

// ownerType is the type declaring method d.
func ownerType(d Def, dg *FileGraph) typeRef {
	return typeRef{name: typeName(d), module: dg.Module, lang: d.Lang, from: d.Path}
}

// ownerDecl returns the declaration of the type declaring method d, and
// that type.
func (r *Resolver) ownerDecl(d Def) (*typeDecl, typeRef, error) {
	dg, err := r.graph(d.Path)
	if err != nil || dg == nil {
		return nil, typeRef{}, err
	}
	t := ownerType(d, dg)
	decls, err := r.findTypes(t)
	if err != nil {
		return nil, t, err
	}
	for i := range decls {
		if decls[i].g.Module == dg.Module {
			return &decls[i], t, nil
		}
	}
	return nil, t, nil
}

// goMatchTyped decides whether a Go call of d's name on a receiver of
// type t refers to method d (see the rules at the top of this file).
func (r *Resolver) goMatchTyped(s *Site, d Def, dg *FileGraph, t typeRef, conf Confidence) (Confidence, string, bool, error) {
	obj, err := r.goMethod(t, d.Name)
	if err != nil || !obj.found {
		return 0, "", false, err
	}
	recv := "receiver type " + t.name
	if obj.same(d) {
		if typeName(d) != t.name {
			recv += " embeds " + typeName(d)
		}
		return conf, recv, true, nil
	}
	dDecl, dType, err := r.ownerDecl(d)
	if err != nil || dDecl == nil {
		return 0, "", false, err
	}
	likely := min(conf, Likely)
	if !r.isInterface(*dDecl) {
		// A concrete method reached through an interface.
		if !obj.iface {
			return 0, "", false, nil
		}
		if obj.std == "" {
			od, _, err := r.ownerDecl(obj.def)
			if err != nil || od == nil {
				return 0, "", false, err
			}
			ok, err := r.goImplements(dType, od, "")
			if err != nil || !ok {
				return 0, "", false, err
			}
			return likely, "through interface " + t.name, true, nil
		}
		ok, err := r.goImplements(dType, nil, obj.std)
		if err != nil || !ok {
			return 0, "", false, err
		}
		if sameModule(s, d, dg) {
			return likely, "through interface " + strings.TrimPrefix(obj.std, "."), true, nil
		}
		via, err := r.stdThroughWorkspace(dType, obj.std, d.Name)
		if err != nil || via == "" {
			return 0, "", false, err
		}
		return likely, "through interface " + strings.TrimPrefix(obj.std, ".") + " (" + typeName(d) + " is a " + via + ")", true, nil
	}
	// An interface method d reached through another method object.
	switch {
	case obj.std != "":
		// In d's package only, as gopls: a standard interface that d's
		// interface implements, or a standard type implementing it.
		if !sameModule(s, d, dg) {
			return 0, "", false, nil
		}
		if stdTypes[obj.std].concrete {
			st := typeRef{name: obj.std[strings.LastIndexByte(obj.std, '.')+1:], module: stdTypes[obj.std].pkg, lang: "go"}
			if ok, err := r.goImplements(st, dDecl, ""); err != nil || ok {
				return likely, strings.TrimPrefix(obj.std, ".") + " implements " + dDecl.def.Name, ok, err
			}
			return 0, "", false, nil
		}
		if ok, err := r.goImplements(dType, nil, obj.std); err != nil || ok {
			return likely, "through interface " + strings.TrimPrefix(obj.std, "."), ok, err
		}
		return 0, "", false, nil
	case !obj.iface:
		// A concrete method of a type implementing d's interface.
		_, ot, err := r.ownerDecl(obj.def)
		if err != nil || ot.name == "" {
			return 0, "", false, err
		}
		ok, err := r.goImplements(ot, dDecl, "")
		if err != nil || !ok {
			return 0, "", false, err
		}
		return likely, typeName(obj.def) + " implements " + dDecl.def.Name, true, nil
	}
	// Another interface declaring the method: one's method set contains
	// the other's.
	od, ot, err := r.ownerDecl(obj.def)
	if err != nil || od == nil {
		return 0, "", false, err
	}
	if ok, err := r.goImplements(ot, dDecl, ""); err != nil || ok {
		return likely, "through interface " + od.def.Name, ok, err
	}
	if ok, err := r.goImplements(dType, od, ""); err != nil || ok {
		return likely, "through interface " + od.def.Name, ok, err
	}
	return 0, "", false, nil
}

// goMethodResult resolves the k-th result type of calling m on type t: a
// method (declared, promoted, of an interface or of a standard library
// interface), else a field of a named function type (f func(…) R).
func (r *Resolver) goMethodResult(t typeRef, m string, k int) (typeRef, Confidence, bool, error) {
	obj, err := r.goMethod(t, m)
	if err != nil {
		return typeRef{}, 0, false, err
	}
	if obj.found {
		rt, ok := resultType("go", obj.sig, m, k)
		if !ok {
			return typeRef{}, 0, false, nil
		}
		if obj.std != "" {
			mod := stdTypes[obj.std].pkg
			if rt.qual != "" {
				mod = rt.qual // an import path's last element, outside the workspace anyway
			}
			return typeRef{name: rt.name, module: mod, lang: t.lang, from: t.from, elem: rt.elem}, Exact, true, nil
		}
		dg, err := r.graph(obj.def.Path)
		if err != nil || dg == nil {
			return typeRef{}, 0, false, err
		}
		return qualifyRaw(rt, obj.def, dg), Exact, true, nil
	}
	ft, conf, ok, err := r.fieldType(t, m, 0)
	if err != nil || !ok {
		return typeRef{}, 0, false, err
	}
	decls, err := r.findTypes(ft)
	if err != nil {
		return typeRef{}, 0, false, err
	}
	for _, td := range decls {
		if rt, ok := resultType("go", td.def.Signature, td.def.Name, k); ok && !r.isInterface(td) {
			return qualifyRaw(rt, td.def, td.g), conf, true, nil
		}
	}
	return typeRef{}, 0, false, nil
}

// stdThroughWorkspace returns the name of a workspace interface that
// embeds a standard library interface carrying E's method m (E itself,
// or one embedding it: io.ReadCloser carries io.Closer's Close) and that
// type t implements; "" when there is none. As in gopls, a type used as
// such an interface is reached by every call of E's m.
func (r *Resolver) stdThroughWorkspace(t typeRef, std, m string) (string, error) {
	return memoized(r, memoKey("stdvia", t.key(), std, m), func() (string, error) {
		for _, key := range stdKeys {
			if decl, _, ok := stdMethod(key, m); !ok || decl != std {
				continue
			}
			var names []string
			err := r.ix.Sites(EmbedKey(key), func(p string, v []byte) bool {
				name, err := DecodeEmbed(v)
				if err == nil {
					names = append(names, p+"\x00"+name)
				}
				return true
			})
			if err != nil {
				return "", fmt.Errorf("embedders of %s: %w", key, err)
			}
			for _, pn := range names {
				p, name, _ := strings.Cut(pn, "\x00")
				g, err := r.graph(p)
				if err != nil || g == nil {
					return "", err
				}
				iface := typeRef{name: name, module: g.Module, lang: g.Lang, from: p}
				decls, err := r.findTypes(iface)
				if err != nil {
					return "", err
				}
				for i := range decls {
					// The interface's m must be E's: one it declares itself or
					// takes from an earlier embedded interface wins.
					obj, err := r.goInterfaceMethod(decls[i], m, 0)
					if err != nil {
						return "", err
					}
					if obj.std != std {
						continue
					}
					if ok, err := r.goImplements(t, &decls[i], ""); err != nil || ok {
						return name, err
					}
				}
			}
		}
		return "", nil
	})
}

// goSigTypes reduces "func (r *T) Name(a, b int, c pkg.X) (T, error)" to
// its parameter types "int,int,X" and result types "T,error".
func goSigTypes(sig, name string) (params, results string, ok bool) {
	p, r, ok := goSigParts(sig, name)
	if !ok {
		return "", "", false
	}
	for i := range p {
		p[i] = unqualify(p[i])
	}
	for i := range r {
		r[i] = unqualify(r[i])
	}
	return strings.Join(p, ","), strings.Join(r, ","), true
}

// goSigParts splits a Go signature into its parameter and result types as
// written (package qualifiers kept, names dropped, any as interface{}).
func goSigParts(sig, name string) (params, results []string, ok bool) {
	i := strings.Index(sig, name+"(")
	if i < 0 {
		return nil, nil, false
	}
	rest := sig[i+len(name):]
	after := skipBalanced(rest, '(', ')')
	if after == "" && !strings.HasSuffix(rest, ")") {
		return nil, nil, false
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(rest[:len(rest)-len(after)], "("), ")")
	res := strings.TrimSpace(after)
	if strings.HasPrefix(res, "(") {
		res = strings.TrimSuffix(strings.TrimPrefix(res, "("), ")")
	}
	return goTypeList(inner), goTypeList(res), true
}

// goFuncTypes drops the parameter and result names of the function types
// in a type: func(rpc RPC) error is func(RPC) error.
func goFuncTypes(t string) string {
	i := strings.Index(t, "func(")
	if i < 0 {
		return t
	}
	rest := t[i+4:]
	after := skipBalanced(rest, '(', ')')
	params := strings.TrimSuffix(strings.TrimPrefix(rest[:len(rest)-len(after)], "("), ")")
	out := t[:i] + "func(" + strings.Join(goTypeList(params), ",") + ")"
	res := strings.TrimLeft(after, " ")
	if strings.HasPrefix(res, "(") {
		tail := skipBalanced(res, '(', ')')
		inner := strings.TrimSuffix(strings.TrimPrefix(res[:len(res)-len(tail)], "("), ")")
		return out + "(" + strings.Join(goTypeList(inner), ",") + ")" + goFuncTypes(tail)
	}
	if res != after {
		out += " "
	}
	return out + goFuncTypes(res)
}

// goTypeParams lists the type parameters a Go declaration's signature
// names: a generic type's ("type Store[K comparable, V any] interface")
// or a method's receiver's ("func (c *Cache[K, V]) Add(…)").
func goTypeParams(sig string) []string {
	var list string
	if rest, ok := strings.CutPrefix(sig, "func ("); ok {
		recv := rest[:len(rest)-len(skipBalanced("("+rest, '(', ')'))+1]
		if i := strings.IndexByte(recv, '['); i >= 0 {
			list = recv[i+1 : max(i+1, strings.LastIndexByte(recv, ']'))]
		}
	} else if rest, ok := strings.CutPrefix(sig, "type "); ok {
		if i := strings.IndexByte(rest, '['); i >= 0 && IsIdentifier(strings.TrimSpace(rest[:i])) {
			inner := skipBalanced(rest[i:], '[', ']')
			list = rest[i+1 : len(rest)-len(inner)-1]
		}
	}
	var out []string
	for _, part := range splitTopLevel(list, ',') {
		if f := strings.Fields(part); len(f) > 0 && IsIdentifier(f[0]) {
			out = append(out, f[0])
		}
	}
	return out
}

// goWildTypeParams replaces the whole-word type parameters in a reduced
// signature by "$": a generic interface's methods and an implementation's
// name their type parameters differently (Values() []T, Values() []V).
func goWildTypeParams(sig string, params map[string]bool) string {
	if len(params) == 0 {
		return sig
	}
	var b strings.Builder
	word := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	for i := 0; i < len(sig); {
		if !word(sig[i]) {
			b.WriteByte(sig[i])
			i++
			continue
		}
		j := i
		for j < len(sig) && word(sig[j]) {
			j++
		}
		if params[sig[i:j]] {
			b.WriteByte('$')
		} else {
			b.WriteString(sig[i:j])
		}
		i = j
	}
	return b.String()
}

// goTypeList splits a Go parameter list into its types, one per
// parameter, without names.
func goTypeList(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		parts = append(parts, t)
	}
	named := false
	for _, p := range parts {
		if f := strings.Fields(p); len(f) >= 2 && IsIdentifier(f[0]) && !strings.HasPrefix(f[1], ".") {
			named = true
		}
	}
	out := make([]string, len(parts))
	next := ""
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if named {
			if f := strings.Fields(p); len(f) >= 2 {
				next = strings.TrimSpace(p[len(f[0]):])
			}
			p = next
		}
		p = strings.ReplaceAll(goFuncTypes(p), " ", "")
		if p == "any" {
			p = "interface{}"
		}
		out[i] = p
	}
	return out
}
