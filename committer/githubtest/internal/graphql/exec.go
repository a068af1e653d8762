package graphql

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Object is a value of a GraphQL object type. Field answers one field of
// it; the executor handles __typename, aliases, fragments and directives.
// A field's value is nil, a string, bool, int, an orderedObj-able Object,
// or a []Object.
type Object interface {
	TypeName() string
	Field(x *Exec, name string, args map[string]any) (any, error)
}

// Exec executes one validated operation.
type Exec struct {
	Env  any // the resolvers' state (the *Server: srvOf)
	R    *http.Request
	Doc  *ast.QueryDocument
	Vars map[string]any
	Errs []*Error
}

// kv and orderedObj keep the reply's keys in selection order, as GraphQL
// requires.
type kv struct {
	k string
	v any
}

type orderedObj []kv

func (o orderedObj) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		buf.Write(k)
		buf.WriteByte(':')
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Run executes op; the result is nil when a non-null root field failed.
// query and mutation are the root objects.
func (x *Exec) Run(op *ast.OperationDefinition, query, mutation Object) any {
	root := query
	if op.Operation == ast.Mutation {
		root = mutation
	}
	out, ok := x.selectSet(root, op.SelectionSet, nil)
	if !ok {
		return nil
	}
	return out
}

// collect flattens fragments into the fields that apply to typ, grouped by
// response key in first-seen order.
func (x *Exec) collect(typ string, set ast.SelectionSet, keys *[]string, groups map[string][]*ast.Field) {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if !x.included(s.Directives) {
				continue
			}
			k := s.Alias
			if k == "" {
				k = s.Name
			}
			if _, seen := groups[k]; !seen {
				*keys = append(*keys, k)
			}
			groups[k] = append(groups[k], s)
		case *ast.InlineFragment:
			if x.included(s.Directives) && x.applies(s.TypeCondition, typ) {
				x.collect(typ, s.SelectionSet, keys, groups)
			}
		case *ast.FragmentSpread:
			f := x.Doc.Fragments.ForName(s.Name)
			if f != nil && x.included(s.Directives) && x.applies(f.TypeCondition, typ) {
				x.collect(typ, f.SelectionSet, keys, groups)
			}
		}
	}
}

func (x *Exec) included(ds ast.DirectiveList) bool {
	if d := ds.ForName("skip"); d != nil {
		if v, _ := d.ArgumentMap(x.Vars)["if"].(bool); v {
			return false
		}
	}
	if d := ds.ForName("include"); d != nil {
		if v, _ := d.ArgumentMap(x.Vars)["if"].(bool); !v {
			return false
		}
	}
	return true
}

// applies reports whether a fragment on cond applies to an object of typ.
func (x *Exec) applies(cond, typ string) bool {
	if cond == "" || cond == typ {
		return true
	}
	schema, _ := Schema()
	def := schema.Types[cond]
	if def == nil {
		return false
	}
	for _, p := range schema.GetPossibleTypes(def) {
		if p.Name == typ {
			return true
		}
	}
	return false
}

// selectSet answers a selection set on obj. ok is false when a non-null
// field came out null: the null then propagates to the parent.
func (x *Exec) selectSet(obj Object, set ast.SelectionSet, path []any) (orderedObj, bool) {
	var keys []string
	groups := map[string][]*ast.Field{}
	x.collect(obj.TypeName(), set, &keys, groups)
	out := make(orderedObj, 0, len(keys))
	for _, k := range keys {
		fs := groups[k]
		f := fs[0]
		p := append(append([]any{}, path...), k)
		if f.Name == "__typename" {
			out = append(out, kv{k, obj.TypeName()})
			continue
		}
		var sub ast.SelectionSet
		for _, g := range fs {
			sub = append(sub, g.SelectionSet...)
		}
		v, err := obj.Field(x, f.Name, f.ArgumentMap(x.Vars))
		var um *unmodelled
		if errors.As(err, &um) && !f.Definition.Type.NonNull {
			err = nil // null, as GitHub answers for data it does not have
		}
		if err != nil {
			x.fail(err, f, p)
			v = nil
		}
		val, ok := x.complete(v, f.Definition.Type, sub, p)
		if !ok {
			return nil, false
		}
		out = append(out, kv{k, val})
	}
	return out, true
}

// complete turns a resolver's value into JSON for type t.
func (x *Exec) complete(v any, t *ast.Type, sub ast.SelectionSet, path []any) (any, bool) {
	switch val := v.(type) {
	case nil:
		return nil, !t.NonNull
	case Object:
		o, ok := x.selectSet(val, sub, path)
		if !ok {
			return nil, !t.NonNull
		}
		return o, true
	case []Object:
		list := make([]any, 0, len(val))
		for i, e := range val {
			o, ok := x.complete(e, t.Elem, sub, append(append([]any{}, path...), i))
			if !ok {
				return nil, !t.NonNull
			}
			list = append(list, o)
		}
		return list, true
	}
	return v, true
}

func (x *Exec) fail(err error, f *ast.Field, path []any) {
	var ge *Error
	var um *unmodelled
	switch {
	case errors.As(err, &ge):
	case errors.As(err, &um):
		// Not GitHub's: a documented error of the fake (package doc).
		ge = &Error{Type: "NOT_MODELLED", Message: um.Error()}
	default:
		ge = &Error{Message: err.Error()}
	}
	e := *ge
	e.Path = path
	if f.Position != nil {
		e.Locations = []gqlerror.Location{{Line: f.Position.Line, Column: f.Position.Column}}
	}
	x.Errs = append(x.Errs, &e)
}

// ArgInt reads an Int argument, given inline (int64) or as a variable.
func ArgInt(args map[string]any, name string) (int64, bool) {
	switch v := args[name].(type) {
	case int64:
		return v, true
	case int:
		return int64(v), true
	case float64:
		return int64(v), true
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	}
	return 0, false
}
