package mcp

import (
	"fmt"
	"reflect"

	"github.com/context-ls/context-ls/service"
)

// JSON Schemas of the tools, generated from the service's request and
// result types: the argument rules an agent reads are the ones the service
// checks (service.Fields), and every result field carries its desc tag.

// inputSchema builds the JSON Schema of a request type.
func inputSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range service.Fields(t) {
		p := map[string]any{"description": f.Desc}
		switch f.Type.Kind() {
		case reflect.String:
			p["type"] = "string"
			if len(f.Rules.Enum) > 0 {
				p["enum"] = f.Rules.Enum
			}
			if f.Rules.MaxLen > 0 {
				p["maxLength"] = f.Rules.MaxLen
			}
		case reflect.Bool, reflect.Pointer:
			p["type"] = "boolean"
		case reflect.Int:
			p["type"] = "integer"
		case reflect.Float64:
			p["type"] = "number"
		case reflect.Slice:
			items := map[string]any{"type": "string"}
			if f.Rules.MaxLen > 0 {
				items["maxLength"] = f.Rules.MaxLen
			}
			p["type"] = "array"
			p["items"] = items
			if f.Rules.MaxItems > 0 {
				p["maxItems"] = f.Rules.MaxItems
			}
		}
		if f.Rules.Min != nil {
			p["minimum"] = *f.Rules.Min
		}
		if f.Rules.Max != nil {
			p["maximum"] = *f.Rules.Max
		}
		if d := f.DefaultValue(); d != nil {
			p["default"] = d
		}
		if f.Rules.Required {
			required = append(required, f.Name)
		}
		props[f.Name] = p
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// outputSchema builds the JSON Schema of a result type: every field
// without omitempty is required, structs nest, slices are arrays, maps are
// objects of one value type, pointers are their element.
func outputSchema(t reflect.Type) map[string]any {
	return typeSchema(t, "")
}

func typeSchema(t reflect.Type, desc string) map[string]any {
	s := map[string]any{}
	if desc != "" {
		s["description"] = desc
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeSchema(t.Elem(), desc)
	case reflect.String:
		s["type"] = "string"
	case reflect.Bool:
		s["type"] = "boolean"
	case reflect.Int, reflect.Int64:
		s["type"] = "integer"
	case reflect.Float64:
		s["type"] = "number"
	case reflect.Slice:
		s["type"] = "array"
		s["items"] = typeSchema(t.Elem(), "")
	case reflect.Map:
		s["type"] = "object"
		s["additionalProperties"] = typeSchema(t.Elem(), "")
	case reflect.Struct:
		props := map[string]any{}
		required := []string{}
		addStructFields(t, props, &required)
		s["type"] = "object"
		s["properties"] = props
		if len(required) > 0 {
			s["required"] = required
		}
	default:
		panic(fmt.Sprintf("mcp: result type %s is not supported by the schema generator", t))
	}
	return s
}

// addStructFields adds t's serialised fields, flattening embedded structs
// the way encoding/json does.
func addStructFields(t reflect.Type, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			addStructFields(f.Type, props, required)
			continue
		}
		name, omit := service.JSONName(f)
		if name == "" {
			continue
		}
		desc := f.Tag.Get("desc")
		if desc == "" {
			panic(fmt.Sprintf("mcp: result field %s.%s has no desc tag", t, f.Name))
		}
		props[name] = typeSchema(f.Type, desc)
		if !omit {
			*required = append(*required, name)
		}
	}
}
