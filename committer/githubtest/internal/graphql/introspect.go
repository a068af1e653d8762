package graphql

import (
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// Introspection (__schema, __type(name:)) over the served schema, as GitHub
// answers it: GitHub's whole published schema, without the members of
// schema previews the request did not ask for (updateRefs and its types
// without PreviewUpdateRefs), so a client that introspects sees what it may
// send.

// Introspection is the state one Introspection answer shares.
type Introspection struct {
	schema       *ast.Schema
	preview      bool            // the request sent PreviewUpdateRefs
	previewTypes map[string]bool // the types of the previews, hidden without them
}

// NewIntrospection answers introspection for a request that sent the
// preview (preview) or not; previewTypes are the types hidden without it.
func NewIntrospection(preview bool, previewTypes map[string]bool) *Introspection {
	schema, _ := Schema()
	return &Introspection{schema: schema, preview: preview, previewTypes: previewTypes}
}

// IntrospectType answers __type(name:) for the type called n.
func IntrospectType(in *Introspection, n string) (any, error) {
	d := in.schema.Types[n]
	if d == nil || in.previewType(n) {
		return nil, nil
	}
	return gqlTypeObj{in: in, def: d}, nil
}

// hidden reports whether a field is left out: the root's __schema and
// __type, and updateRefs without its preview.
func (in *Introspection) hidden(field string) bool {
	return strings.HasPrefix(field, "__") || !in.preview && field == "updateRefs"
}

// SchemaObj is __schema.
type SchemaObj struct{ In *Introspection }

// TypeName is "__Schema".
func (SchemaObj) TypeName() string { return "__Schema" }

// Field answers one field of __schema.
func (g SchemaObj) Field(_ *Exec, name string, _ map[string]any) (any, error) {
	s := g.In.schema
	switch name {
	case "description":
		return nil, nil
	case "types":
		names := make([]string, 0, len(s.Types))
		for n := range s.Types {
			if !(g.In.previewType(n)) {
				names = append(names, n)
			}
		}
		sortStrings(names)
		out := make([]Object, 0, len(names))
		for _, n := range names {
			out = append(out, gqlTypeObj{in: g.In, def: s.Types[n]})
		}
		return out, nil
	case "queryType":
		return gqlTypeObj{in: g.In, def: s.Query}, nil
	case "mutationType":
		if s.Mutation == nil {
			return nil, nil
		}
		return gqlTypeObj{in: g.In, def: s.Mutation}, nil
	case "subscriptionType":
		if s.Subscription == nil {
			return nil, nil
		}
		return gqlTypeObj{in: g.In, def: s.Subscription}, nil
	case "directives":
		names := make([]string, 0, len(s.Directives))
		for n := range s.Directives {
			names = append(names, n)
		}
		sortStrings(names)
		out := make([]Object, 0, len(names))
		for _, n := range names {
			out = append(out, gqlDirectiveObj{in: g.In, d: s.Directives[n]})
		}
		return out, nil
	}
	return nil, Unserved("__Schema", name)
}

// previewType reports whether a type is a preview member the request did
// not enable.
func (in *Introspection) previewType(name string) bool { return !in.preview && in.previewTypes[name] }

// gqlTypeObj is a __Type: a named definition, or a LIST / NON_NULL wrapper.
type gqlTypeObj struct {
	in  *Introspection
	def *ast.Definition // named type
	t   *ast.Type       // wrapper (def nil)
}

func (in *Introspection) typeOf(t *ast.Type) Object {
	if t.NonNull || t.Elem != nil {
		return gqlTypeObj{in: in, t: t}
	}
	return gqlTypeObj{in: in, def: in.schema.Types[t.NamedType]}
}

func (gqlTypeObj) TypeName() string { return "__Type" }

func (g gqlTypeObj) Field(_ *Exec, name string, args map[string]any) (any, error) {
	if g.def == nil { // a wrapper
		switch name {
		case "kind":
			if g.t.NonNull {
				return "NON_NULL", nil
			}
			return "LIST", nil
		case "ofType":
			inner := *g.t
			if inner.NonNull {
				inner.NonNull = false
				return g.in.typeOf(&inner), nil
			}
			return g.in.typeOf(g.t.Elem), nil
		}
		return nil, nil // every other field is null for a wrapper
	}
	d := g.def
	withDeprecated, _ := args["includeDeprecated"].(bool)
	switch name {
	case "kind":
		return string(d.Kind), nil
	case "name":
		return d.Name, nil
	case "description":
		return orNull(d.Description), nil
	case "specifiedByURL":
		if dir := d.Directives.ForName("specifiedBy"); dir != nil {
			if a := dir.Arguments.ForName("url"); a != nil {
				return a.Value.Raw, nil
			}
		}
		return nil, nil
	case "isOneOf":
		if d.Kind != ast.InputObject {
			return nil, nil
		}
		return d.Directives.ForName("oneOf") != nil, nil
	case "fields":
		if d.Kind != ast.Object && d.Kind != ast.Interface {
			return nil, nil
		}
		var out []Object
		for _, f := range d.Fields {
			if g.in.hidden(f.Name) || (!withDeprecated && deprecated(f.Directives)) {
				continue
			}
			out = append(out, gqlFieldObj{in: g.in, f: f})
		}
		return nonNilList(out), nil
	case "interfaces":
		if d.Kind != ast.Object && d.Kind != ast.Interface {
			return nil, nil
		}
		out := []Object{}
		for _, i := range d.Interfaces {
			out = append(out, gqlTypeObj{in: g.in, def: g.in.schema.Types[i]})
		}
		return out, nil
	case "possibleTypes":
		if d.Kind != ast.Interface && d.Kind != ast.Union {
			return nil, nil
		}
		out := []Object{}
		for _, p := range g.in.schema.GetPossibleTypes(d) {
			out = append(out, gqlTypeObj{in: g.in, def: p})
		}
		return out, nil
	case "enumValues":
		if d.Kind != ast.Enum {
			return nil, nil
		}
		out := []Object{}
		for _, v := range d.EnumValues {
			if withDeprecated || !deprecated(v.Directives) {
				out = append(out, gqlEnumValueObj{v: v})
			}
		}
		return out, nil
	case "inputFields":
		if d.Kind != ast.InputObject {
			return nil, nil
		}
		out := []Object{}
		for _, f := range d.Fields {
			if withDeprecated || !deprecated(f.Directives) {
				out = append(out, gqlInputValueObj{in: g.in, name: f.Name, desc: f.Description, t: f.Type, def: f.DefaultValue, dirs: f.Directives})
			}
		}
		return out, nil
	case "ofType":
		return nil, nil
	}
	return nil, Unserved("__Type", name)
}

type gqlFieldObj struct {
	in *Introspection
	f  *ast.FieldDefinition
}

func (gqlFieldObj) TypeName() string { return "__Field" }

func (g gqlFieldObj) Field(_ *Exec, name string, args map[string]any) (any, error) {
	switch name {
	case "name":
		return g.f.Name, nil
	case "description":
		return orNull(g.f.Description), nil
	case "args":
		return argsObjs(g.in, g.f.Arguments, args), nil
	case "type":
		return g.in.typeOf(g.f.Type), nil
	case "isDeprecated":
		return deprecated(g.f.Directives), nil
	case "deprecationReason":
		return deprecationReason(g.f.Directives), nil
	}
	return nil, Unserved("__Field", name)
}

func argsObjs(in *Introspection, list ast.ArgumentDefinitionList, args map[string]any) []Object {
	withDeprecated, _ := args["includeDeprecated"].(bool)
	out := []Object{}
	for _, a := range list {
		if withDeprecated || !deprecated(a.Directives) {
			out = append(out, gqlInputValueObj{in: in, name: a.Name, desc: a.Description, t: a.Type, def: a.DefaultValue, dirs: a.Directives})
		}
	}
	return out
}

type gqlInputValueObj struct {
	in         *Introspection
	name, desc string
	t          *ast.Type
	def        *ast.Value
	dirs       ast.DirectiveList
}

func (gqlInputValueObj) TypeName() string { return "__InputValue" }

func (g gqlInputValueObj) Field(_ *Exec, name string, _ map[string]any) (any, error) {
	switch name {
	case "name":
		return g.name, nil
	case "description":
		return orNull(g.desc), nil
	case "type":
		return g.in.typeOf(g.t), nil
	case "defaultValue":
		if g.def == nil {
			return nil, nil
		}
		return g.def.String(), nil
	case "isDeprecated":
		return deprecated(g.dirs), nil
	case "deprecationReason":
		return deprecationReason(g.dirs), nil
	}
	return nil, Unserved("__InputValue", name)
}

type gqlEnumValueObj struct{ v *ast.EnumValueDefinition }

func (gqlEnumValueObj) TypeName() string { return "__EnumValue" }

func (g gqlEnumValueObj) Field(_ *Exec, name string, _ map[string]any) (any, error) {
	switch name {
	case "name":
		return g.v.Name, nil
	case "description":
		return orNull(g.v.Description), nil
	case "isDeprecated":
		return deprecated(g.v.Directives), nil
	case "deprecationReason":
		return deprecationReason(g.v.Directives), nil
	}
	return nil, Unserved("__EnumValue", name)
}

type gqlDirectiveObj struct {
	in *Introspection
	d  *ast.DirectiveDefinition
}

func (gqlDirectiveObj) TypeName() string { return "__Directive" }

func (g gqlDirectiveObj) Field(_ *Exec, name string, args map[string]any) (any, error) {
	switch name {
	case "name":
		return g.d.Name, nil
	case "description":
		return orNull(g.d.Description), nil
	case "isRepeatable":
		return g.d.IsRepeatable, nil
	case "locations":
		out := make([]any, 0, len(g.d.Locations))
		for _, l := range g.d.Locations {
			out = append(out, string(l))
		}
		return out, nil
	case "args":
		return argsObjs(g.in, g.d.Arguments, args), nil
	}
	return nil, Unserved("__Directive", name)
}

func deprecated(ds ast.DirectiveList) bool { return ds.ForName("deprecated") != nil }

func deprecationReason(ds ast.DirectiveList) any {
	d := ds.ForName("deprecated")
	if d == nil {
		return nil
	}
	if a := d.Arguments.ForName("reason"); a != nil && a.Value != nil {
		return a.Value.Raw
	}
	return "No longer supported"
}

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nonNilList(l []Object) []Object {
	if l == nil {
		return []Object{}
	}
	return l
}

func sortStrings(s []string) { sort.Strings(s) }
