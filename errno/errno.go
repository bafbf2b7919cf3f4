// Package errno is the error type of netsim: a kernel errno together with the
// extack-style message the kernel would have attached to it.
//
// Every error a simulated kernel operation returns is an *Error, so callers can
// test the errno with errors.Is and show the message to a person:
//
//	err := h.LinkAdd(netdev.Dummy{Name: "eth0"})
//	if errors.Is(err, syscall.EEXIST) { ... }
//	fmt.Println(err) // "file exists: device eth0 already exists"
package errno

import (
	"errors"
	"fmt"
	"syscall"
)

// Error is a kernel errno with an extack-style message. The zero Error is not
// meaningful; construct one with New or Errorf.
type Error struct {
	Errno syscall.Errno // e.g. syscall.EEXIST
	Msg   string        // the extack message, e.g. "Nexthop id does not exist"; may be empty
	// Attr is the attribute the extack points at (NL_SET_ERR_MSG_ATTR's
	// bad_attr), written as the kernel's code names it: a table and a
	// uapi attribute name, e.g. "data[IFLA_VXLAN_ID]" or
	// "tb[IFLA_MTU]"; "" for none. A front end on the wire turns it into
	// the offset of that attribute in the request, if it has one.
	Attr string
}

// New returns an *Error for errno e with message msg.
func New(e syscall.Errno, msg string) *Error { return &Error{Errno: e, Msg: msg} }

// At sets the attribute the error's extack points at (see Error.Attr) and
// returns e.
func (e *Error) At(attr string) *Error {
	e.Attr = attr
	return e
}

// Errorf returns an *Error for errno e with a formatted message.
func Errorf(e syscall.Errno, format string, args ...any) *Error {
	return &Error{Errno: e, Msg: fmt.Sprintf(format, args...)}
}

// Error renders the error like iproute2 does: the strerror text, then the
// extack message when there is one.
func (e *Error) Error() string {
	if e.Msg == "" {
		return e.Errno.Error()
	}
	return e.Errno.Error() + ": " + e.Msg
}

// Unwrap returns the errno, so errors.Is(err, syscall.ENOENT) works.
func (e *Error) Unwrap() error { return e.Errno }

// Of returns the errno carried by err, or 0 when err is nil or carries none.
func Of(err error) syscall.Errno {
	var en syscall.Errno
	if errors.As(err, &en) {
		return en
	}
	return 0
}
