package githubtest

import (
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/ghcommitter/ghcommitter/committer/githubtest/internal/graphql"
)

// Introspection (__schema, __type(name:)) over the served schema, as GitHub
// answers it: GitHub's whole published schema, without the members of
// schema previews the request did not ask for (updateRefs and its types
// without PreviewUpdateRefs), so a client that introspects sees what it may
// send.

// introspection is the state one introspection answer shares.
type introspection struct {
	schema       *ast.Schema
	preview      bool            // the request sent PreviewUpdateRefs
	previewTypes map[string]bool // the types of the previews, hidden without them
}

func newIntrospection(preview bool, previewTypes map[string]bool) *introspection {
	schema, _ := graphql.Schema()
	return &introspection{schema: schema, preview: preview, previewTypes: previewTypes}
}

// introspectType answers __type(name:) for the type called n.
func introspectType(in *introspection, n string) (any, error) {
	d := in.schema.Types[n]
	if d == nil || in.previewType(n) {
		return nil, nil
	}
	return gqlTypeObj{in: in, def: d}, nil
}

// hidden reports whether a field is left out: the root's __schema and
// __type, and updateRefs without its preview.
func (in *introspection) hidden(field string) bool {
	return strings.HasPrefix(field, "__") || !in.preview && field == "updateRefs"
}

type gqlSchemaObj struct{ in *introspection }

func (gqlSchemaObj) typeName() string { return "__Schema" }

func (g gqlSchemaObj) field(_ *gqlExec, name string, _ map[string]any) (any, error) {
	s := g.in.schema
	switch name {
	case "description":
		return nil, nil
	case "types":
		names := make([]string, 0, len(s.Types))
		for n := range s.Types {
			if !(g.in.previewType(n)) {
				names = append(names, n)
			}
		}
		sortStrings(names)
		out := make([]gqlObject, 0, len(names))
		for _, n := range names {
			out = append(out, gqlTypeObj{in: g.in, def: s.Types[n]})
		}
		return out, nil
	case "queryType":
		return gqlTypeObj{in: g.in, def: s.Query}, nil
	case "mutationType":
		if s.Mutation == nil {
			return nil, nil
		}
		return gqlTypeObj{in: g.in, def: s.Mutation}, nil
	case "subscriptionType":
		if s.Subscription == nil {
			return nil, nil
		}
		return gqlTypeObj{in: g.in, def: s.Subscription}, nil
	case "directives":
		names := make([]string, 0, len(s.Directives))
		for n := range s.Directives {
			names = append(names, n)
		}
		sortStrings(names)
		out := make([]gqlObject, 0, len(names))
		for _, n := range names {
			out = append(out, gqlDirectiveObj{in: g.in, d: s.Directives[n]})
		}
		return out, nil
	}
	return nil, errUnserved("__Schema", name)
}

// previewType reports whether a type is a preview member the request did
// not enable.
func (in *introspection) previewType(name string) bool { return !in.preview && in.previewTypes[name] }

// gqlTypeObj is a __Type: a named definition, or a LIST / NON_NULL wrapper.
type gqlTypeObj struct {
	in  *introspection
	def *ast.Definition // named type
	t   *ast.Type       // wrapper (def nil)
}

func (in *introspection) typeOf(t *ast.Type) gqlObject {
	if t.NonNull || t.Elem != nil {
		return gqlTypeObj{in: in, t: t}
	}
	return gqlTypeObj{in: in, def: in.schema.Types[t.NamedType]}
}

func (gqlTypeObj) typeName() string { return "__Type" }

func (g gqlTypeObj) field(_ *gqlExec, name string, args map[string]any) (any, error) {
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
		var out []gqlObject
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
		out := []gqlObject{}
		for _, i := range d.Interfaces {
			out = append(out, gqlTypeObj{in: g.in, def: g.in.schema.Types[i]})
		}
		return out, nil
	case "possibleTypes":
		if d.Kind != ast.Interface && d.Kind != ast.Union {
			return nil, nil
		}
		out := []gqlObject{}
		for _, p := range g.in.schema.GetPossibleTypes(d) {
			out = append(out, gqlTypeObj{in: g.in, def: p})
		}
		return out, nil
	case "enumValues":
		if d.Kind != ast.Enum {
			return nil, nil
		}
		out := []gqlObject{}
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
		out := []gqlObject{}
		for _, f := range d.Fields {
			if withDeprecated || !deprecated(f.Directives) {
				out = append(out, gqlInputValueObj{in: g.in, name: f.Name, desc: f.Description, t: f.Type, def: f.DefaultValue, dirs: f.Directives})
			}
		}
		return out, nil
	case "ofType":
		return nil, nil
	}
	return nil, errUnserved("__Type", name)
}

type gqlFieldObj struct {
	in *introspection
	f  *ast.FieldDefinition
}

func (gqlFieldObj) typeName() string { return "__Field" }

func (g gqlFieldObj) field(_ *gqlExec, name string, args map[string]any) (any, error) {
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
	return nil, errUnserved("__Field", name)
}

func argsObjs(in *introspection, list ast.ArgumentDefinitionList, args map[string]any) []gqlObject {
	withDeprecated, _ := args["includeDeprecated"].(bool)
	out := []gqlObject{}
	for _, a := range list {
		if withDeprecated || !deprecated(a.Directives) {
			out = append(out, gqlInputValueObj{in: in, name: a.Name, desc: a.Description, t: a.Type, def: a.DefaultValue, dirs: a.Directives})
		}
	}
	return out
}

type gqlInputValueObj struct {
	in         *introspection
	name, desc string
	t          *ast.Type
	def        *ast.Value
	dirs       ast.DirectiveList
}

func (gqlInputValueObj) typeName() string { return "__InputValue" }

func (g gqlInputValueObj) field(_ *gqlExec, name string, _ map[string]any) (any, error) {
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
	return nil, errUnserved("__InputValue", name)
}

type gqlEnumValueObj struct{ v *ast.EnumValueDefinition }

func (gqlEnumValueObj) typeName() string { return "__EnumValue" }

func (g gqlEnumValueObj) field(_ *gqlExec, name string, _ map[string]any) (any, error) {
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
	return nil, errUnserved("__EnumValue", name)
}

type gqlDirectiveObj struct {
	in *introspection
	d  *ast.DirectiveDefinition
}

func (gqlDirectiveObj) typeName() string { return "__Directive" }

func (g gqlDirectiveObj) field(_ *gqlExec, name string, args map[string]any) (any, error) {
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
	return nil, errUnserved("__Directive", name)
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

func nonNilList(l []gqlObject) []gqlObject {
	if l == nil {
		return []gqlObject{}
	}
	return l
}

func sortStrings(s []string) { sort.Strings(s) }
