package querytext

import (
	"regexp"
	"strings"
)

// Messages a language runtime or compiler prints name code that no text
// search finds: the toolchain builds them, so they are in no string of the
// codebase. "Option.__init__() got an unexpected keyword argument 'x'"
// names the function whose parameters are wrong; "'Context' object has no
// attribute 'meta'" the class an attribute is missing from and the
// attribute; "cannot import name 'url_decode' from 'werkzeug.urls'" the
// module and what it lacks; "interface conversion: interface {} is
// *cli.StringSlice, not []string" the types converted; "undefined:
// cli.NewApp" a name the code no longer has. These forms are fixed by the
// toolchains (CPython, Go, V8, tsc), so they are read here by their words.

// weightRuntime is the weight of a name a runtime message gives: the
// runtime's own spelling of a name, as sure as a code span's, though it
// may be the user's function or type.
const weightRuntime = weightSpan

var (
	// CPython's errors about a call's arguments, naming the callable
	// (qualified since Python 3.10: "Option.__init__()").
	pyCallRe = regexp.MustCompile(`(?:^|[\s:])([A-Za-z_][\w.]*)\(\) (?:got an unexpected keyword argument|got multiple values for (?:keyword )?argument|missing \d+ required (?:positional|keyword-only) arguments?|takes (?:from \d+ to )?\d+ (?:positional )?arguments? but|takes no (?:keyword )?arguments|got some positional-only arguments)`)
	// CPython's errors about an object: its type, and the attribute.
	pyAttrRe = regexp.MustCompile(`(?:^|[\s:])(?:'([\w.]+)' object|type object '([\w.]+)'|module '([\w.]+)') has no attribute '(\w+)'`)
	pyUseRe  = regexp.MustCompile(`(?:^|[\s:])'([\w.]+)' object (?:is not (?:callable|subscriptable|iterable|an iterator|a mapping)|does not support item (?:assignment|deletion)|cannot be interpreted as an integer)`)
	pyNameRe = regexp.MustCompile(`(?:^|[\s:])(?:global )?name '(\w+)' is not defined`)
	// CPython's import errors: a name a module no longer (or not yet) has.
	pyImportRe = regexp.MustCompile(`cannot import name '(\w+)' from '([\w.]+)'|No module named '([\w.]+)'`)
	// Go's compiler: an undefined name, a missing method, an interface
	// not implemented.
	goUndefRe = regexp.MustCompile(`(?:^|\s)undefined: ([A-Za-z_][\w.]*)|undefined \(type \*?([\w./]+) has no field or method (\w+)|(\*?[\w./]+) does not implement ([\w./]+) \((?:missing|wrong type for) method (\w+)\)`)
	// TypeScript's compiler: a property a type lacks, an export a module lacks.
	tsPropRe = regexp.MustCompile(`Property '(\w+)' does not exist on type '([\w.]+)'|has no exported member '(\w+)'`)
	// Go's failed type assertions.
	goConvRe = regexp.MustCompile(`interface conversion: ([^\s,:]+(?: \{\})?) is (?:not )?([^\s,:]+)(?:, not ([^\s,:]+)|: missing method (\w+))?`)
	// V8's errors about a property.
	jsReadRe = regexp.MustCompile(`Cannot (?:read|set) propert(?:y|ies) of (?:undefined|null) \((?:reading|setting) '(\w+)'\)|(?:^|\s)([A-Za-z_$][\w$.]*) is not a (?:function|constructor)\b`)
)

// builtinTypes are the types of a language's runtime: a message about a
// None or a str names no type of the codebase.
var builtinTypes = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`NoneType str bytes bytearray int float complex bool list dict set
		frozenset tuple object type function builtin_function_or_method method module generator
		coroutine property classmethod staticmethod range slice memoryview dict_keys dict_values
		dict_items map filter zip enumerate
		interface{} string int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 float64
		bool byte rune error any
		number boolean unknown never void Object Array Function Promise`) {
		m[w] = true
	}
	return m
}()

// readRuntime adds the names the runtime or compiler messages of line msg
// give.
func readRuntime(msg string, names *nameSet) {
	// find runs re only on a line holding one of its words: a pasted log
	// has thousands of lines, and most hold none.
	find := func(re *regexp.Regexp, words ...string) [][]string {
		for _, w := range words {
			if strings.Contains(msg, w) {
				return re.FindAllStringSubmatch(msg, -1)
			}
		}
		return nil
	}
	add := func(name string) {
		if name != "" && !isDunder(lastPart(name)) && !builtinTypes[name] {
			names.add(name, weightRuntime)
		}
	}
	for _, m := range find(pyCallRe, "() ") {
		// A bare special method ("__init__() got …") says which protocol,
		// not which class; a qualified one ("Option.__init__") does.
		if fn := m[1]; !isDunder(fn) {
			names.add(fn, weightRuntime)
		}
	}
	for _, m := range find(pyAttrRe, "has no attribute") {
		// The attribute is missing from owner (the fix adds it there) or
		// read where an owner of another type was expected (the fix is
		// where it is read): owner's is the surer name.
		owner, attr := firstNonEmpty(m[1], m[2], m[3]), m[4]
		if owner != "" && !builtinTypes[owner] && !isDunder(attr) {
			names.add(owner+"."+attr, weightRuntime)
		}
		add(owner)
		if attr != "" && !isDunder(attr) {
			names.add(attr, weightProse)
		}
	}
	for _, m := range find(pyUseRe, "' object ") {
		add(m[1])
	}
	for _, m := range find(pyNameRe, "is not defined") {
		add(m[1])
	}
	for _, m := range find(pyImportRe, "cannot import name", "No module named") {
		if m[1] != "" {
			names.add(m[2]+"."+m[1], weightRuntime) // the module names its file
			add(m[1])
		}
		add(m[3])
	}
	for _, m := range find(goUndefRe, "undefined", "does not implement") {
		add(goTypeName(m[1])) // cli.NewApp: the package is the import's name
		if t := goTypeName(m[2]); t != "" && m[3] != "" {
			names.add(t+"."+m[3], weightRuntime)
			add(t)
		}
		add(goTypeName(m[4]))
		add(goTypeName(m[5]))
		add(m[3])
		add(m[6])
	}
	for _, m := range find(tsPropRe, "does not exist on type", "has no exported member") {
		if m[1] != "" && !builtinTypes[m[2]] {
			names.add(m[2]+"."+m[1], weightRuntime)
			add(m[2])
		}
		add(m[1])
		add(m[3])
	}
	for _, m := range find(goConvRe, "interface conversion") {
		for _, t := range m[1:4] {
			add(goTypeName(t))
		}
		add(m[4])
	}
	for _, m := range find(jsReadRe, "Cannot ", " is not a ") {
		add(m[1])
		add(lastPart(m[2]))
	}
}

// goTypeName is the name of the named type at the heart of a Go type
// expression: "*cli.StringSlice" → "StringSlice"; "" for an unnamed or
// predeclared one ("[]string", "interface {}").
func goTypeName(t string) string {
	t = strings.TrimLeft(t, "*[]")
	if strings.HasPrefix(t, "map[") || strings.HasPrefix(t, "func(") || strings.HasPrefix(t, "chan ") || strings.Contains(t, "{") {
		return ""
	}
	if i := strings.LastIndex(t, "/"); i >= 0 {
		t = t[i+1:]
	}
	if !isIdent(strings.ReplaceAll(t, ".", "_")) {
		return ""
	}
	return lastPart(t)
}
