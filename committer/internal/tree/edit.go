package tree

import (
	"fmt"
	"runtime/debug"
)

// EditPanic is the error of an edit function that panicked: the panic is
// recovered where the edit runs, so the process and the other change sets
// in flight live on, and the change set whose edit it was fails with it.
type EditPanic struct {
	Path  string // the path the edit function was given
	Value any    // what the edit function panicked with
	Stack []byte // the goroutine's stack at the panic (runtime/debug.Stack)
}

func (e *EditPanic) Error() string {
	return fmt.Sprintf("edit function of %s panicked: %v", e.Path, e.Value)
}

// Unwrap returns the panic value when it is an error.
func (e *EditPanic) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// CallEdit calls edit on old, turning a panic into an *EditPanic.
func CallEdit(path string, edit func(old []byte, exists bool) ([]byte, error), old []byte, exists bool) (updated []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			updated, err = nil, &EditPanic{Path: path, Value: v, Stack: debug.Stack()}
		}
	}()
	return edit(old, exists)
}

// runEdit runs the edit of path: through rv.RunEdit when set (a batch
// bounds how long it waits), else on the calling goroutine.
func (rv *Resolver) runEdit(path string, edit func(old []byte, exists bool) ([]byte, error), old []byte, exists bool) ([]byte, error) {
	call := func() ([]byte, error) { return CallEdit(path, edit, old, exists) }
	if rv.RunEdit != nil {
		return rv.RunEdit(call)
	}
	return call()
}
