package service

import (
	"fmt"
	"reflect"
	"strings"
)

// Text renders a result as plain lines, for a front end that has no
// rendering of its own for it (the CLI without --json, an MCP tool's text):
// every located item on a line — its span (path:start-end), then its
// name, kind, confidence and reason when it has them —, a definition
// heading the items listed under it, and counts of what was left out.
func Text(res any) string {
	var b strings.Builder
	writeText(&b, reflect.ValueOf(res), "")
	if b.Len() == 0 {
		return "nothing found\n"
	}
	return b.String()
}

// textNames are the fields that say what a located item is, in the order
// a line shows them.
var textNames = []string{"Symbol", "In", "Kind", "Confidence", "Reason"}

func writeText(b *strings.Builder, v reflect.Value, indent string) {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			writeText(b, v.Index(i), indent)
		}
		return
	case reflect.Struct:
	default:
		return
	}
	t := v.Type()
	if loc, ok := v.Interface().(Location); ok {
		fmt.Fprintf(b, "%s%s\n", indent, spanText(loc))
		return
	}
	if f, ok := t.FieldByName("Location"); ok && f.Anonymous && f.Type == reflect.TypeFor[Location]() {
		line := []string{spanText(v.FieldByIndex(f.Index).Interface().(Location))}
		for _, name := range textNames {
			if fv := v.FieldByName(name); fv.IsValid() && fv.Kind() == reflect.String && fv.String() != "" {
				s := fv.String()
				if name == "Kind" {
					s = "(" + s + ")"
				}
				line = append(line, s)
			}
		}
		fmt.Fprintf(b, "%s%s\n", indent, strings.Join(line, "  "))
		return
	}
	inner := indent
	for i := 0; i < t.NumField(); i++ {
		f, fv := t.Field(i), v.Field(i)
		if !f.IsExported() {
			continue
		}
		switch {
		case f.Type == reflect.TypeFor[Symbol]():
			s := fv.Interface().(Symbol)
			fmt.Fprintf(b, "%s%s (%s:%d, %s)\n", indent, s.Symbol, s.Path, s.NameRange.StartLine, s.Kind)
			inner = indent + "  "
		case fv.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct:
			if fv.Len() == 0 && inner != indent {
				fmt.Fprintf(b, "%snone found\n", inner)
			}
			writeText(b, fv, inner)
		case fv.Kind() == reflect.Int && fv.Int() > 0 && (f.Name == "Truncated" || f.Name == "Omitted"):
			fmt.Fprintf(b, "%s… %d %s\n", inner, fv.Int(), strings.ToLower(f.Name))
		}
	}
}

// spanText renders path:start-end (path:line for one line).
func spanText(l Location) string {
	if l.EndLine <= l.StartLine {
		return fmt.Sprintf("%s:%d", l.Path, l.StartLine)
	}
	return fmt.Sprintf("%s:%d-%d", l.Path, l.StartLine, l.EndLine)
}
