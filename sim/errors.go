// The errors a user of sim can meet: bad World options or a bad cost table
// (returned), and the misuses and failures that stop a run (raised by
// World.Run as a panic): a deadlock, Run called while running, a Mutex
// unlocked by a task that does not hold it, a task that finished holding
// a Mutex, a kernel thread that blocked, a coarse schedule whose order
// broke.

package sim

import (
	"fmt"
	"syscall"
)

// Error is an error of the simulation core: an errno, chosen as the kernel
// would for the same mistake, and a message. It renders as package errno's
// errors do ("invalid argument: sim: negative number of virtual CPUs -1"),
// errors.Is(err, syscall.EINVAL) holds for it, and so does errors.Is(err,
// ErrBadOptions) against the sentinel of its kind.
//
// sim imports nothing of the project, not even package errno, so that it
// stays below every model package: Error is its own type with errno's text
// form, and errno.Of reads its errno as it reads an *errno.Error's.
type Error struct {
	Errno syscall.Errno
	Msg   string
	kind  *Error // the sentinel this error is one of; nil for a sentinel
}

// Error renders the error as package errno does: the strerror text, then
// the message.
func (e *Error) Error() string {
	if e.Msg == "" {
		return e.Errno.Error()
	}
	return e.Errno.Error() + ": " + e.Msg
}

// Unwrap returns the errno, so errors.Is(err, syscall.EINVAL) works.
func (e *Error) Unwrap() error { return e.Errno }

// Is reports whether target is the sentinel of e's kind.
func (e *Error) Is(target error) bool { return e.kind != nil && target == e.kind }

// The kinds of Error, for errors.Is.
var (
	// ErrBadOptions: Options that describe no machine (a negative number
	// of virtual CPUs). EINVAL.
	ErrBadOptions = &Error{Errno: syscall.EINVAL, Msg: "sim: bad World options"}
	// ErrBadCosts: a cost table with a negative cost. EINVAL.
	ErrBadCosts = &Error{Errno: syscall.EINVAL, Msg: "sim: bad cost table"}
	// ErrDeadlock: Run found tasks blocked and nothing left to run. EDEADLK.
	ErrDeadlock = &Error{Errno: syscall.EDEADLK, Msg: "sim: deadlock"}
	// ErrHeldAtExit: a task finished holding a Mutex, which then stays held
	// (lockdep's "lock held when returning to user space"). EDEADLK.
	ErrHeldAtExit = &Error{Errno: syscall.EDEADLK, Msg: "sim: task finished holding a mutex"}
	// ErrRunning: World.Run called while the World runs. EBUSY.
	ErrRunning = &Error{Errno: syscall.EBUSY, Msg: "sim: World already running"}
	// ErrNotOwner: Mutex.Unlock by a task that does not hold the Mutex
	// (mutex_unlock's DEBUG_LOCKS_WARN_ON(__owner_task(owner) != current);
	// EPERM as an error-checking mutex answers it).
	ErrNotOwner = &Error{Errno: syscall.EPERM, Msg: "sim: mutex unlocked by a task that does not hold it"}
	// ErrBlockedInKernelThread: a kernel thread (an RCU callback) slept or
	// waited ("scheduling while atomic"). EINVAL.
	ErrBlockedInKernelThread = &Error{Errno: syscall.EINVAL, Msg: "sim: a kernel thread blocked"}
	// ErrCoarseOrder: under Options.Coarse a task asked for a Mutex at an
	// earlier virtual time than the task that took it alone: the coarse
	// schedule cannot go on in order. ENOTRECOVERABLE.
	ErrCoarseOrder = &Error{Errno: syscall.ENOTRECOVERABLE, Msg: "sim: coarse schedule broken"}
)

// errorf returns an Error of kind k with a formatted message.
func errorf(k *Error, format string, args ...any) *Error {
	return &Error{Errno: k.Errno, Msg: fmt.Sprintf(format, args...), kind: k}
}
