package errdefs

import (
	"fmt"
	"strings"
)

// Violation is one bad field of a request: Field is the path in the request ("action.click.count") and
// Description says what is wrong, including the value received.
type Violation struct {
	Field       string
	Description string
}

// BadRequest is an invalid request with every bad field listed. It wraps ErrInvalidArgument; package
// errgrpc sends it as INVALID_ARGUMENT with a google.rpc.BadRequest detail.
type BadRequest struct {
	Violations []Violation
}

// Error lists the violations as "field: description; ...".
func (e *BadRequest) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.Field + ": " + v.Description
	}
	return "invalid argument: " + strings.Join(parts, "; ")
}

// Unwrap makes errors.Is(err, ErrInvalidArgument) hold.
func (e *BadRequest) Unwrap() error { return ErrInvalidArgument }

// Violations collects field violations while a request is checked.
type Violations struct {
	list []Violation
}

// Addf records a violation of field.
func (v *Violations) Addf(field, format string, args ...any) {
	v.list = append(v.list, Violation{Field: field, Description: fmt.Sprintf(format, args...)})
}

// Len is the number of violations recorded.
func (v *Violations) Len() int { return len(v.list) }

// Err returns a *BadRequest with the recorded violations, or nil when there are none.
func (v *Violations) Err() error {
	if len(v.list) == 0 {
		return nil
	}
	return &BadRequest{Violations: append([]Violation(nil), v.list...)}
}
